import { z } from 'zod';
import { ContextId, ConversationId, Id, NonBlank, RunId, Stage } from './common';
import { ReasoningOutcome } from './reasoning';

/** Seed 002 §8.3: project facts, architecture decisions, recent run outcomes. */
export const MemoryTier = z.enum(['project', 'architecture', 'run_outcome']);
export type MemoryTier = z.infer<typeof MemoryTier>;

/** Where a memory came from: the run (and the context id of the stage) that retained it. */
export const MemorySource = z.object({ runId: RunId.optional(), contextId: ContextId.optional() });
export type MemorySource = z.infer<typeof MemorySource>;

export const Memory = z.object({
  memoryId: Id,
  scope: Id,
  tier: MemoryTier,
  content: z.string(),
  tags: z.array(z.string()),
  source: MemorySource.optional(),
});
export type Memory = z.infer<typeof Memory>;

/**
 * The project a memory request is about. The memory service derives the scope from it, so a request
 * names a project, never a bare scope: a deployment that sets the roots it serves
 * (`STAGECRAFT_PROJECT_ROOTS`) refuses a project outside them.
 */
export const MemoryProject = NonBlank.max(4_096).regex(/^\//, 'an absolute path').describe('the project root the memory belongs to');

export const MemoryRetainRequest = z.object({
  projectRoot: MemoryProject,
  tier: MemoryTier,
  content: NonBlank.max(4_000),
  tags: z.array(z.string().min(1).max(64)).max(16).default([]),
  memoryId: Id.optional().describe('supply to make retries idempotent'),
  source: MemorySource.optional().describe('the run (and context id) the memory comes from, recorded with it'),
});
export type MemoryRetainRequest = z.infer<typeof MemoryRetainRequest>;
export const MemoryRetainReply = z.object({ memoryId: Id, retained: z.boolean() });
export type MemoryRetainReply = z.infer<typeof MemoryRetainReply>;

export const MemoryRecallRequest = z.object({
  projectRoot: MemoryProject,
  query: NonBlank,
  tier: MemoryTier.optional(),
  limit: z.number().int().min(1).max(50).default(5),
});
export type MemoryRecallRequest = z.infer<typeof MemoryRecallRequest>;
export const MemoryRecallReply = z.object({ memories: z.array(Memory.extend({ score: z.number() })) });
export type MemoryRecallReply = z.infer<typeof MemoryRecallReply>;

export const MemoryReflectRequest = z.object({ projectRoot: MemoryProject, query: NonBlank });
export type MemoryReflectRequest = z.infer<typeof MemoryReflectRequest>;
export const MemoryReflectReply = z.object({ reflection: z.string(), memoryIds: z.array(Id) });
export type MemoryReflectReply = z.infer<typeof MemoryReflectReply>;

/**
 * A place in the global log, as a decimal string (JSON has no 64-bit integers). A view's reply says
 * which position it reflects; a request's `minPosition` (say, the position of the caller's own append)
 * makes the service wait until its view has folded that far.
 */
export const LogPosition = z.string().regex(/^\d{1,20}$/, 'a log position: a decimal string of up to 20 digits');
export type LogPosition = z.infer<typeof LogPosition>;

/** One `ReasoningRecorded` of a run, with the stage and context id of the stage it was recorded in. */
export const ReasoningEntry = z.object({
  requestId: Id,
  stage: Stage.nullable(),
  contextId: ContextId.nullable(),
  position: LogPosition,
  outcome: ReasoningOutcome,
});
export type ReasoningEntry = z.infer<typeof ReasoningEntry>;

/** Exactly one of `runId` (that run's latest outcome) and `conversationId` (the latest of any of its runs). */
export const ReasoningOutcomeGetRequest = z
  .object({ runId: RunId.optional(), conversationId: ConversationId.optional(), minPosition: LogPosition.optional() })
  .superRefine((request, ctx) => {
    if ((request.runId === undefined) !== (request.conversationId === undefined)) return;
    ctx.addIssue({ code: 'custom', path: [], message: 'give exactly one of runId and conversationId' });
  })
  .meta({ oneOf: [{ required: ['runId'] }, { required: ['conversationId'] }] });
/** `runId`: the run the outcome came from (null when there is none); `history`: that run's outcomes, oldest first. */
export const ReasoningOutcomeGetReply = z.object({
  runId: RunId.nullable(),
  outcome: ReasoningOutcome.nullable(),
  history: z.array(ReasoningEntry),
  position: LogPosition,
});

export const HistoryMessage = z.object({ role: z.enum(['user', 'assistant', 'tool', 'system']), content: z.string() });
export const HistoryGetRequest = z.object({ conversationId: ConversationId, minPosition: LogPosition.optional() });
export const HistoryGetReply = z.object({
  conversationId: ConversationId,
  summary: z.string().nullable(),
  messages: z.array(HistoryMessage),
  position: LogPosition,
});
export type ReasoningOutcomeGetRequest = z.infer<typeof ReasoningOutcomeGetRequest>;
export type ReasoningOutcomeGetReply = z.infer<typeof ReasoningOutcomeGetReply>;
export type HistoryGetRequest = z.infer<typeof HistoryGetRequest>;
export type HistoryGetReply = z.infer<typeof HistoryGetReply>;
