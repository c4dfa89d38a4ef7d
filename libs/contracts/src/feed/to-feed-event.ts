import type { EventData, EventType, RunEventType, StagecraftEvent } from '../events';
import { runOfStream } from '../events';
import { FEED_VERSION, FeedData, FeedEvent, FeedEventType, FeedMetadata } from './v1';

/** A stored run event as the feed's publisher has it: read from the log (with id, position, stream), or a notice. */
export type StoredRunEventForFeed = StagecraftEvent & { id?: string; position?: string | bigint; streamId?: string };

/** Present keys only: an absent optional field stays absent on the wire. */
function present<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

type ToPublic = {
  [T in RunEventType]: T extends FeedEventType ? (data: EventData<T>) => FeedData<T> : 'internal';
};

/**
 * Each stored run event type, to its public data or `internal` (not on the feed). Typed per type, so a
 * new stored run event does not compile until it is mapped here or declared internal. What is dropped:
 * bodies by hash (`messageHashes`, `newBodies`, `promptHash`), the model's own call ids, compaction
 * settings and log ranges, a workflow agent's upstream context, and every chain and commit mark.
 */
const toPublic: ToPublic = {
  RunStarted: (d) =>
    present({
      runId: d.runId,
      conversationId: d.conversationId,
      userMode: d.userMode,
      reasoningEnabled: d.reasoningEnabled,
      userInput: d.userInput,
      projectRoot: d.projectRoot,
      historyThrough: d.historyThrough,
      limits: d.limits && {
        maxToolIterations: d.limits.maxToolIterations,
        maxDeliveryChecks: d.limits.maxDeliveryChecks,
        maxCorrectionsPerStage: d.limits.maxCorrectionsPerStage,
        maxDelegationDepth: d.limits.maxDelegationDepth,
      },
      forkedFrom: d.forkedFrom && { runId: d.forkedFrom.runId, revision: d.forkedFrom.revision },
      approve: d.approve,
      agent: d.agent && {
        workflowId: d.agent.workflowId,
        agentId: d.agent.agentId,
        agentType: d.agent.agentType,
        role: d.agent.role,
        phase: d.agent.phase,
        contextId: d.agent.contextId,
        attempt: d.agent.attempt,
      },
    }),
  StageEntered: (d) => present({ stage: d.stage, iteration: d.iteration, policy: d.policy, contextId: d.contextId }),
  ModelRequested: (d) =>
    present({
      requestId: d.requestId,
      stage: d.stage,
      model: d.model,
      toolNames: d.toolNames,
      toolChoice: d.toolChoice,
      messageCount: d.messageCount,
      tokenEstimate: d.tokenEstimate,
    }),
  ModelResponded: (d) =>
    present({
      requestId: d.requestId,
      content: d.content,
      toolCalls: d.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
      usage: d.usage,
      latencyMs: d.latencyMs,
      finishReason: d.finishReason,
    }),
  ReasoningRecorded: (d) => present({ requestId: d.requestId, format: d.format, text: d.text, outcome: d.outcome }),
  InstructionIssued: (d) => present({ instruction: d.instruction, accepted: d.accepted, reason: d.reason }),
  ToolCallRequested: (d) => ({ callId: d.callId, tool: d.tool, arguments: d.arguments, stage: d.stage }),
  ToolCallCompleted: (d) =>
    present({
      callId: d.callId,
      tool: d.tool,
      ok: d.ok,
      output: d.output,
      truncated: d.truncated,
      durationMs: d.durationMs,
      interrupted: d.interrupted,
      changes: d.changes,
    }),
  ToolCallRejected: (d) => ({ callId: d.callId, tool: d.tool, stage: d.stage, code: d.code, reason: d.reason }),
  MessageAppended: (d) =>
    present({
      messageId: d.messageId,
      role: d.role,
      content: d.content,
      // Defaults of the stored schema, for events stored before these fields were written.
      instructions: d.instructions ?? [],
      intermediate: d.intermediate ?? false,
      kind: d.kind ?? 'assistant',
      stage: d.stage,
      toolCalls: d.toolCalls?.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
      toolCallId: d.toolCallId,
      outputOf: d.outputOf,
    }),
  HistoryCompacted: (d) =>
    present({
      compactionId: d.compactionId,
      method: d.method,
      trigger: d.trigger,
      replaced: d.replaced,
      summary: d.summary,
      tokensBefore: d.tokensBefore,
      tokensAfter: d.tokensAfter,
      modelCall:
        d.modelCall &&
        present({
          requestId: d.modelCall.requestId,
          model: d.modelCall.model,
          messageCount: d.modelCall.messageCount,
          tokenEstimate: d.modelCall.tokenEstimate,
          latencyMs: d.modelCall.latencyMs,
          usage: d.modelCall.usage,
          finishReason: d.modelCall.finishReason,
        }),
    }),
  DeliveryChecked: (d) => present({ state: d.state, iteration: d.iteration, reason: d.reason }),
  QAReportIssued: (d) => present({ report: d.report, modelCalls: d.modelCalls }),
  ApprovalRequested: (d) =>
    present({ approvalId: d.approvalId, kind: d.kind, summary: d.summary, callId: d.callId, tool: d.tool, arguments: d.arguments }),
  ApprovalGiven: (d) => present({ approvalId: d.approvalId, note: d.note }),
  ApprovalDenied: (d) => ({ approvalId: d.approvalId, reason: d.reason }),
  LimitReached: (d) => ({ limit: d.limit, value: d.value, stage: d.stage, iteration: d.iteration }),
  RunCompleted: (d) => present({ deliveryState: d.deliveryState, answer: d.answer, limit: d.limit, cause: d.cause }),
  RunFailed: (d) => present({ code: d.code, reason: d.reason, stage: d.stage }),
  RunCancelled: (d) => present({ by: d.by, reason: d.reason, stage: d.stage }),
  RunContinued: (d) => ({ by: d.by }),
};

/** The table read by type name: what a type maps to is checked above, per type. */
const byName: Readonly<Record<string, ((data: unknown) => unknown) | 'internal'>> = toPublic as never;

/** The stored run event types that have no public event (none today: every one a client saw is public). */
export const INTERNAL_RUN_EVENT_TYPES = Object.keys(byName).filter((type) => byName[type] === 'internal') as RunEventType[];

/** Whether a stored event of this type goes on the run feed; other streams' events (tool service, memory, prompt bodies, index, workflow) never do. */
export const isPublicRunEventType = (type: EventType): type is RunEventType & FeedEventType =>
  Object.hasOwn(byName, type) && byName[type] !== 'internal';

/**
 * The public event of a stored run event (feed/v1), or null when it has none: a type that stays
 * internal, an event of another stream, or one that names no run. The one way onto the feed.
 */
export function toFeedEvent(event: StoredRunEventForFeed): FeedEvent | null {
  if (!isPublicRunEventType(event.type)) return null;
  if (event.streamId !== undefined && runOfStream(event.streamId) === undefined) return null;
  const { metadata } = event;
  // On a run stream only the stream's name says the run (docs/decisions/0018); the feed names it in each event.
  const runId = metadata.runId ?? (event.streamId === undefined ? undefined : runOfStream(event.streamId));
  if (!runId) return null;
  const map = byName[event.type] as (data: unknown) => unknown;
  const publicMetadata: FeedMetadata = present({
    runId,
    conversationId: metadata.conversationId,
    correlationId: metadata.correlationId,
    causationId: metadata.causationId,
    contextId: metadata.contextId,
    occurredAt: metadata.occurredAt,
  });
  return {
    version: FEED_VERSION,
    ...(event.id === undefined ? {} : { id: event.id }),
    ...(event.position === undefined ? {} : { position: String(event.position) }),
    type: event.type,
    data: map(event.data),
    metadata: publicMetadata,
  } as FeedEvent;
}
