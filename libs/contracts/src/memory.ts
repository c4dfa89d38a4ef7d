import { z } from 'zod';
import { ConversationId, Id, NonBlank, RunId } from './common';
import { ReasoningOutcome } from './reasoning';

/** Seed 002 §8.3: project facts, architecture decisions, recent run outcomes. */
export const MemoryTier = z.enum(['project', 'architecture', 'run_outcome']);
export type MemoryTier = z.infer<typeof MemoryTier>;

export const Memory = z.object({
  memoryId: Id,
  scope: Id,
  tier: MemoryTier,
  content: z.string(),
  tags: z.array(z.string()),
});
export type Memory = z.infer<typeof Memory>;

export const MemoryRetainRequest = z.object({
  scope: Id,
  tier: MemoryTier,
  content: NonBlank.max(4_000),
  tags: z.array(z.string().min(1).max(64)).max(16).default([]),
  memoryId: Id.optional().describe('supply to make retries idempotent'),
});
export type MemoryRetainRequest = z.infer<typeof MemoryRetainRequest>;
export const MemoryRetainReply = z.object({ memoryId: Id, retained: z.boolean() });
export type MemoryRetainReply = z.infer<typeof MemoryRetainReply>;

export const MemoryRecallRequest = z.object({
  scope: Id,
  query: NonBlank,
  tier: MemoryTier.optional(),
  limit: z.number().int().min(1).max(50).default(5),
});
export type MemoryRecallRequest = z.infer<typeof MemoryRecallRequest>;
export const MemoryRecallReply = z.object({ memories: z.array(Memory.extend({ score: z.number() })) });
export type MemoryRecallReply = z.infer<typeof MemoryRecallReply>;

export const MemoryReflectRequest = z.object({ scope: Id, query: NonBlank });
export type MemoryReflectRequest = z.infer<typeof MemoryReflectRequest>;
export const MemoryReflectReply = z.object({ reflection: z.string(), memoryIds: z.array(Id) });
export type MemoryReflectReply = z.infer<typeof MemoryReflectReply>;

export const ReasoningOutcomeGetRequest = z.object({ runId: RunId });
export const ReasoningOutcomeGetReply = z.object({ outcome: ReasoningOutcome.nullable() });

export const HistoryMessage = z.object({ role: z.enum(['user', 'assistant', 'tool', 'system']), content: z.string() });
export const HistoryGetRequest = z.object({ conversationId: ConversationId });
export const HistoryGetReply = z.object({
  conversationId: ConversationId,
  summary: z.string().nullable(),
  messages: z.array(HistoryMessage),
});
export type ReasoningOutcomeGetRequest = z.infer<typeof ReasoningOutcomeGetRequest>;
export type ReasoningOutcomeGetReply = z.infer<typeof ReasoningOutcomeGetReply>;
export type HistoryGetRequest = z.infer<typeof HistoryGetRequest>;
export type HistoryGetReply = z.infer<typeof HistoryGetReply>;
