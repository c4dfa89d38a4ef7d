import { z } from 'zod';
import { ApprovalKind, ApprovalPolicy } from '../approvals';
import {
  CancelledBy,
  ContextId,
  ConversationId,
  DeliveryState,
  Id,
  IsoTimestamp,
  NonBlank,
  RunId,
  RunLimitName,
  Stage,
  ToolName,
  UserMode,
} from '../common';
import { ErrorCode } from '../errors';
import { CompactionMethod, CompactionTrigger, HistorySummary } from '../history';
import { Instruction } from '../instructions';
import { StagePolicy } from '../policy';
import { QAModelCall, QAReport, Usage } from '../qa';
import { ReasoningOutcome } from '../reasoning';
import { AgentRole } from '../workflow-runs';
import { FileChange } from '../tools';

/**
 * The public run feed, version 1 (docs/decisions/0046): what `run.<runId>.events` and its JetStream
 * stream carry, one message per stored run event. Each shape is written out here on its own, not
 * derived from the stored event's schema, so the log can change while this stays as clients know it.
 * Within version 1 a change may only add optional fields or new event types (clients skip types they
 * do not know); anything else is version 2.
 */
export const FEED_VERSION = 1;

const ToolCallV1 = z.object({ id: Id, name: z.string().min(1), arguments: z.string() });

/** The workflow agent a run works for; the upstream context it was given stays in the log. */
const AgentV1 = z.object({
  workflowId: Id,
  agentId: NonBlank,
  agentType: NonBlank,
  role: AgentRole,
  phase: NonBlank,
  contextId: ContextId,
  attempt: z.number().int().min(1),
});

/** Each public run event's data, by type: the types equal the stored events' a client saw before version 1. */
export const feedV1DataSchemas = {
  RunStarted: z.object({
    runId: RunId,
    conversationId: ConversationId,
    userMode: UserMode,
    reasoningEnabled: z.boolean(),
    userInput: NonBlank,
    projectRoot: NonBlank,
    /** The conversation's earlier turns this run builds on: `conversation-<id>` through this revision. */
    historyThrough: z.number().int().min(0).optional(),
    limits: z
      .object({
        maxToolIterations: z.number().int().min(0),
        maxDeliveryChecks: z.number().int().min(0),
        maxCorrectionsPerStage: z.number().int().min(0),
        maxDelegationDepth: z.number().int().min(0),
      })
      .optional(),
    /** The run this one was forked from, and the revision of that run it was copied through. */
    forkedFrom: z.object({ runId: RunId, revision: z.number().int().min(0) }).optional(),
    approve: ApprovalPolicy.optional(),
    agent: AgentV1.optional(),
  }),
  /** `policy` absent: the stage keeps the policy of the stage entry before it. */
  StageEntered: z.object({
    stage: Stage,
    iteration: z.number().int().min(0),
    policy: StagePolicy.optional(),
    contextId: ContextId,
  }),
  /** Sent with its answer: it arrives once the model has responded. The prompt's bodies stay in the log. */
  ModelRequested: z.object({
    requestId: Id,
    stage: Stage,
    model: z.string().min(1),
    toolNames: z.array(ToolName),
    /** `none`: the tools were offered but the stage may call none. */
    toolChoice: z.literal('none').optional(),
    messageCount: z.number().int().min(0),
    tokenEstimate: z.number().int().min(0),
  }),
  ModelResponded: z.object({
    requestId: Id,
    content: z.string(),
    toolCalls: z.array(ToolCallV1),
    usage: Usage.optional(),
    latencyMs: z.number().min(0),
    finishReason: z.string().nullable(),
  }),
  /** `text`: only for runs recorded before the block was read from the response (its first `<ide_reasoning>` block). */
  ReasoningRecorded: z.object({
    requestId: Id,
    format: z.enum(['macro', 'micro']),
    text: z.string().optional(),
    outcome: ReasoningOutcome,
  }),
  InstructionIssued: z.object({ instruction: Instruction, accepted: z.boolean(), reason: z.string().optional() }),
  ToolCallRequested: z.object({ callId: Id, tool: ToolName, arguments: z.record(z.string(), z.unknown()), stage: Stage }),
  /** `interrupted`: the call was cut off, its effect is unknown, and it is never run again. */
  ToolCallCompleted: z.object({
    callId: Id,
    tool: ToolName,
    ok: z.boolean(),
    output: z.string(),
    truncated: z.boolean(),
    durationMs: z.number().min(0),
    interrupted: z.boolean().optional(),
    /** The files a successful write changed, each with its unified diff. */
    changes: z.array(FileChange).optional(),
  }),
  ToolCallRejected: z.object({ callId: Id, tool: z.string(), stage: Stage, code: ErrorCode, reason: z.string() }),
  MessageAppended: z.object({
    messageId: Id,
    role: z.enum(['user', 'assistant', 'tool', 'system']),
    content: z.string(),
    instructions: z.array(Instruction),
    intermediate: z.boolean(),
    kind: z.enum(['user_input', 'assistant', 'tool_result', 'correction', 'delegation']),
    stage: Stage.optional(),
    toolCalls: z.array(ToolCallV1).optional(),
    toolCallId: z.string().optional(),
    /** The message is the output of the `ToolCallCompleted` with this call id, sent just before it; its `content` is then empty. */
    outputOf: Id.optional(),
  }),
  /** Older messages of the run's requests were replaced by `summary`; which log ranges it drew on stays in the log. */
  HistoryCompacted: z.object({
    compactionId: Id,
    method: CompactionMethod,
    trigger: CompactionTrigger,
    replaced: z.number().int().min(1),
    summary: HistorySummary,
    tokensBefore: z.number().int().min(0),
    tokensAfter: z.number().int().min(0),
    /** The model call a `model` compaction made, logged like the run's own calls. */
    modelCall: z
      .object({
        requestId: NonBlank,
        model: z.string(),
        messageCount: z.number().int().min(0),
        tokenEstimate: z.number().int().min(0),
        latencyMs: z.number().min(0),
        usage: Usage.optional(),
        finishReason: z.string().nullable(),
      })
      .optional(),
  }),
  DeliveryChecked: z.object({ state: DeliveryState, iteration: z.number().int().min(0), reason: z.string().optional() }),
  QAReportIssued: z.object({ report: QAReport, modelCalls: z.array(QAModelCall).optional() }),
  ApprovalRequested: z.object({
    approvalId: Id,
    kind: ApprovalKind,
    summary: NonBlank,
    callId: Id.optional(),
    tool: ToolName.optional(),
    arguments: z.record(z.string(), z.unknown()).optional(),
  }),
  ApprovalGiven: z.object({ approvalId: Id, note: z.string().max(2_000).optional() }),
  ApprovalDenied: z.object({ approvalId: Id, reason: z.string().max(2_000) }),
  LimitReached: z.object({ limit: RunLimitName, value: z.number().int().min(0), stage: Stage, iteration: z.number().int().min(0) }),
  /** `limit`: the bound that ran out, when the run ended on one rather than on a `DONE`. */
  /** `cause`: why the run ended `NEEDS_WORK`, in runs that record it. */
  RunCompleted: z.object({ deliveryState: DeliveryState, answer: z.string(), limit: RunLimitName.optional(), cause: z.string().optional() }),
  RunFailed: z.object({ code: ErrorCode, reason: z.string(), stage: Stage.optional() }),
  RunCancelled: z.object({ by: CancelledBy, reason: z.string().max(500), stage: Stage.optional() }),
  RunContinued: z.object({ by: CancelledBy }),
};

export type FeedEventType = keyof typeof feedV1DataSchemas;
export const FEED_EVENT_TYPES = Object.keys(feedV1DataSchemas) as FeedEventType[];
export type FeedData<T extends FeedEventType> = z.infer<(typeof feedV1DataSchemas)[T]>;

/** Every public event names its run; the log's chain links and commit marks are not part of it. */
export const FeedMetadata = z.object({
  runId: RunId.describe('the run the event is of'),
  conversationId: ConversationId.optional(),
  correlationId: Id.optional(),
  causationId: Id.optional(),
  contextId: ContextId.optional(),
  occurredAt: IsoTimestamp,
});
export type FeedMetadata = z.infer<typeof FeedMetadata>;

function feedEnvelope<T extends FeedEventType>(type: T) {
  return z
    .object({
      version: z.literal(FEED_VERSION).describe('the feed version: 1 only grows (new optional fields, new types); a break is version 2'),
      id: Id.optional().describe("the stored event's id, once per event: drop repeats (the feed may repeat after a restart)"),
      position: z
        .string()
        .regex(/^\d{1,20}$/)
        .optional()
        .describe("the stored event's position in the log, as a decimal string; id and position are absent on a notice the log does not hold yet"),
      type: z.literal(type),
      data: feedV1DataSchemas[type],
      metadata: FeedMetadata,
    })
    .describe(`${type}: a public event of the run feed run.<runId>.events (feed/v1)`);
}

/** One public event, as one schema per type (`contracts/feed/v1/<type>.schema.json`). */
export const feedV1EventSchemas = Object.fromEntries(FEED_EVENT_TYPES.map((type) => [type, feedEnvelope(type)])) as {
  [T in FeedEventType]: ReturnType<typeof feedEnvelope<T>>;
};

/** A message of `run.<runId>.events`: one public event, discriminated by `type`. */
export const FeedEvent = z.discriminatedUnion(
  'type',
  FEED_EVENT_TYPES.map((type) => feedV1EventSchemas[type]) as unknown as [ReturnType<typeof feedEnvelope<FeedEventType>>],
);
export type FeedEvent = { [T in FeedEventType]: z.infer<(typeof feedV1EventSchemas)[T]> }[FeedEventType];
export type FeedEventOf<T extends FeedEventType> = Extract<FeedEvent, { type: T }>;
