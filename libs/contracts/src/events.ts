import { z } from 'zod';
import { ContextId, ConversationId, DeliveryState, Id, NonBlank, RunId, Stage, ToolName, UserMode } from './common';
import { ErrorCode } from './errors';
import { Instruction } from './instructions';
import { EventMetadata } from './metadata';
import { StagePolicy } from './policy';
import { QAModelCall, QAReport, Usage } from './qa';
import { ReasoningOutcome } from './reasoning';
import { MemoryTier } from './memory';

const Sha256 = z.string().regex(/^[a-f0-9]{64}$/);

export const ToolCall = z.object({ id: Id, name: z.string().min(1), arguments: z.string() });
export type ToolCall = z.infer<typeof ToolCall>;

export { Usage } from './qa';

/** Event data schemas, one per event type; every stream's events come from this table. */
export const eventDataSchemas = {
  RunStarted: z.object({
    runId: RunId,
    conversationId: ConversationId,
    userMode: UserMode,
    reasoningEnabled: z.boolean(),
    userInput: NonBlank,
    projectRoot: NonBlank,
    /**
     * The conversation's earlier turns are this run's history up to and including this revision of
     * `conversation-<id>`: referenced, not copied, so a long conversation is stored once.
     */
    historyThrough: z.number().int().min(0).optional(),
  }),
  StageEntered: z.object({
    stage: Stage,
    iteration: z.number().int().min(0),
    policy: StagePolicy,
    contextId: ContextId,
  }),
  ModelRequested: z.object({
    requestId: Id,
    stage: Stage,
    model: z.string().min(1),
    toolNames: z.array(ToolName),
    messageCount: z.number().int().min(0),
    tokenEstimate: z.number().int().min(0),
    promptHash: Sha256,
    /** Hashes of every message body in order; each body is stored once, in the first request that used it. */
    messageHashes: z.array(Sha256),
    newBodies: z.record(Sha256, z.string()),
  }),
  ModelResponded: z.object({
    requestId: Id,
    content: z.string(),
    toolCalls: z.array(ToolCall),
    usage: Usage.optional(),
    latencyMs: z.number().min(0),
    finishReason: z.string().nullable(),
  }),
  ReasoningRecorded: z.object({
    requestId: Id,
    format: z.enum(['macro', 'micro']),
    text: z.string(),
    outcome: ReasoningOutcome,
  }),
  InstructionIssued: z.object({
    instruction: Instruction,
    accepted: z.boolean(),
    reason: z.string().optional(),
  }),
  ToolCallRequested: z.object({
    callId: Id,
    tool: ToolName,
    arguments: z.record(z.string(), z.unknown()),
    stage: Stage,
    /** The id the model gave the call, which its tool-result message must echo. */
    modelCallId: z.string().optional(),
    /**
     * Digest of everything else the call id is bound to (run, project root, mode, reasoning switch,
     * delegation): a retry that differs in any of them is another call. Written by the tool service.
     */
    binding: Sha256.optional(),
    /** When the tool service gives up on the call: past it, an unsettled call was interrupted. */
    deadline: z.iso.datetime({ offset: true }).optional(),
  }),
  ToolCallCompleted: z.object({
    callId: Id,
    tool: ToolName,
    ok: z.boolean(),
    output: z.string(),
    truncated: z.boolean(),
    durationMs: z.number().min(0),
    /** The tool service stopped during the call: its effect, if any, is unknown, and the call is not run again. */
    interrupted: z.boolean().optional(),
  }),
  ToolCallRejected: z.object({ callId: Id, tool: z.string(), stage: Stage, code: ErrorCode, reason: z.string(), binding: Sha256.optional() }),
  MessageAppended: z.object({
    messageId: Id,
    role: z.enum(['user', 'assistant', 'tool', 'system']),
    content: z.string(),
    instructions: z.array(Instruction).default([]),
    intermediate: z.boolean().default(false),
    /** Why the message exists: what the user typed, what the model said, a tool result, or a correction the run added. */
    kind: z.enum(['user_input', 'assistant', 'tool_result', 'correction', 'delegation']).default('assistant'),
    stage: Stage.optional(),
    toolCalls: z.array(ToolCall).optional(),
    toolCallId: z.string().optional(),
  }),
  DeliveryChecked: z.object({ state: DeliveryState, iteration: z.number().int().min(0), reason: z.string().optional() }),
  /** `modelCalls`: the reviewer's own model calls (absent in logs written before they were recorded). */
  QAReportIssued: z.object({ report: QAReport, modelCalls: z.array(QAModelCall).optional() }),
  RunCompleted: z.object({ deliveryState: DeliveryState, answer: z.string() }),
  RunFailed: z.object({ code: ErrorCode, reason: z.string(), stage: Stage.optional() }),
  MemoryRetained: z.object({
    memoryId: Id,
    scope: Id,
    tier: MemoryTier,
    content: NonBlank,
    tags: z.array(z.string()),
  }),
} as const;

export type EventType = keyof typeof eventDataSchemas;
export const EVENT_TYPES = Object.keys(eventDataSchemas) as EventType[];
export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;

function envelope<T extends EventType>(type: T) {
  return z.object({ type: z.literal(type), data: eventDataSchemas[type], metadata: EventMetadata });
}

const envelopes = EVENT_TYPES.map((type) => envelope(type));
/** Every domain event: `{ type, data, metadata }`, discriminated by `type`. */
export const StagecraftEvent = z.discriminatedUnion('type', envelopes as unknown as [ReturnType<typeof envelope<EventType>>]);
export type StagecraftEvent = { [T in EventType]: { type: T; data: EventData<T>; metadata: EventMetadata } }[EventType];
export type EventOf<T extends EventType> = Extract<StagecraftEvent, { type: T }>;

/** Parses an event of a known type; throws a ZodError naming the bad fields. */
export function parseEvent(value: unknown): StagecraftEvent {
  return StagecraftEvent.parse(value) as StagecraftEvent;
}

export const streams = {
  run: (runId: string) => `run-${runId}`,
  conversation: (conversationId: string) => `conversation-${conversationId}`,
  toolCall: (callId: string) => `toolcall-${callId}`,
  memory: (scope: string) => `memory-${scope}`,
} as const;
