import { z } from 'zod';
import { ContextId, ConversationId, DeliveryState, Id, NonBlank, RunId, RunLimitName, Stage, ToolName, UserMode } from '../common';
import { ErrorCode } from '../errors';
import { RunForkPoint } from '../conversation';
import { CompactionSettings, HistoryCompacted } from '../history';
import { Instruction } from '../instructions';
import { StagePolicy } from '../policy';
import { QAModelCall, QAReport, Usage } from '../qa';
import { ReasoningOutcome } from '../reasoning';
import { ApprovalDenied, ApprovalGiven, ApprovalPolicy, ApprovalRequested } from '../approvals';
import { AgentBrief } from '../workflow-runs';
import { EditorBridge } from '../editor';
import { CancelledBy } from '../common';
import { EventUnion, eventFamily } from './family';
import { MessageHashEntry } from './message-hashes';
import { MessageAppended, Sha256, ToolCall, ToolCallOutcome } from './shared';

/** `run-<runId>`: everything one run did, written by the conversation service alone. */
export const runEventSchemas = {
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
    /** When and how this run compacts what its requests carry; absent in logs from before compaction (never compacts). */
    compaction: CompactionSettings.optional(),
    /** The bounds the run was started with, kept for its whole life (absent in older logs: the driver's). */
    limits: z
      .object({
        maxToolIterations: z.number().int().min(0),
        maxDeliveryChecks: z.number().int().min(0),
        maxCorrectionsPerStage: z.number().int().min(0),
        maxDelegationDepth: z.number().int().min(0),
        /** Tokens every request of the run must fit in (`STAGECRAFT_CONTEXT_WINDOW`); absent in older logs: the driver's. */
        contextWindow: z.number().int().min(1024).optional(),
      })
      .optional(),
    /** The run this one was forked from: its events up to this revision are copied at the head of this stream. */
    forkedFrom: RunForkPoint.optional(),
    /** Which tool calls wait for a person (the user's choice, never changed); absent: none. */
    approve: ApprovalPolicy.optional(),
    /** Set when the run is an agent of a workflow: its context id, its role and the upstream context it builds on. */
    agent: AgentBrief.optional(),
    /**
     * The version of the rules the run's answers are read by (docs/decisions/0056): 2 holds the strict
     * delivery gate and the stuck-loop detector. Absent in older logs: version 1, so they replay as they ran.
     */
    rules: z.literal(2).optional(),
    /** The editor the run's file reads and writes go through (docs/decisions/0061); absent: the disk. */
    editor: EditorBridge.optional(),
  }),
  StageEntered: z.object({
    stage: Stage,
    iteration: z.number().int().min(0),
    /** Absent when the stage is entered with the policy of the stage entry before it, which stays in force (docs/decisions/0018). */
    policy: StagePolicy.optional(),
    contextId: ContextId,
  }),
  ModelRequested: z.object({
    requestId: Id,
    stage: Stage,
    model: z.string().min(1),
    toolNames: z.array(ToolName),
    /** `none`: the run's tools were offered but the stage may call none (docs/decisions/0052). */
    toolChoice: z.literal('none').optional(),
    messageCount: z.number().int().min(0),
    tokenEstimate: z.number().int().min(0),
    promptHash: Sha256,
    /**
     * Every message body of the request in order, by hash, the stretches the previous request also sent
     * as ranges of it (`expandMessageHashes`). Bodies live in `promptbody-<hash>` streams, or are messages
     * the log holds already: this run's, and its conversation's turns through `historyThrough`.
     */
    messageHashes: z.array(MessageHashEntry),
    /** Logs written before bodies were stored once per store: each body, in the first request of its run that used it. */
    newBodies: z.record(Sha256, z.string()).optional(),
  }),
  ModelResponded: z.object({
    requestId: Id,
    content: z.string(),
    toolCalls: z.array(ToolCall),
    usage: Usage.optional(),
    latencyMs: z.number().min(0),
    finishReason: z.string().nullable(),
    /**
     * A workflow agent's acting call asked for its document as structured output (0059): `json_schema`
     * accepted (`content` is the reply rewritten into text: reasoning, answer, the document in a fence),
     * `refused` then asked without it, `off` not asked (refused earlier). Absent otherwise and in older logs.
     */
    structured: z.enum(['json_schema', 'refused', 'off']).optional(),
  }),
  ReasoningRecorded: z.object({
    requestId: Id,
    format: z.enum(['macro', 'micro']),
    /**
     * The full `<ide_reasoning>` block, in logs written before 0018. Now it is read where it was
     * recorded once: the first block of the `ModelResponded` with the same `requestId` (`reasoningText`).
     */
    text: z.string().optional(),
    outcome: ReasoningOutcome,
  }),
  InstructionIssued: z.object({
    instruction: Instruction,
    accepted: z.boolean(),
    reason: z.string().optional(),
  }),
  /** The model asked for this call. What the tool service did with it is on `toolcall-<callId>`. */
  ToolCallRequested: z.object({
    callId: Id,
    tool: ToolName,
    arguments: z.record(z.string(), z.unknown()),
    stage: Stage,
    /** The id the model gave the call, which its tool-result message must echo. */
    modelCallId: z.string().optional(),
  }),
  /** The call's result came back to the run; `interrupted`: the call was cut off (its effect is unknown) and is never run again. */
  ToolCallCompleted: ToolCallOutcome.extend({ interrupted: z.boolean().optional() }),
  /** The call was refused, by the run (an unknown tool, bad arguments) or by the tool service. */
  ToolCallRejected: z.object({ callId: Id, tool: z.string(), stage: Stage, code: ErrorCode, reason: z.string() }),
  MessageAppended,
  /** The run's next request would have been too long: its older messages are replaced by a summary. */
  HistoryCompacted,
  DeliveryChecked: z.object({ state: DeliveryState, iteration: z.number().int().min(0), reason: z.string().optional() }),
  /** `modelCalls`: the reviewer's own model calls (absent in logs written before they were recorded). */
  QAReportIssued: z.object({ report: QAReport, modelCalls: z.array(QAModelCall).optional() }),
  /** A tool call that waits for a person (`approve`); `ApprovalGiven` lets it run, `ApprovalDenied` refuses it. */
  ApprovalRequested,
  ApprovalGiven,
  ApprovalDenied,
  /**
   * A bound of the run (`RunStarted.limits`) ran out: the tool loop went to the delivery gate, or the
   * gate went to QA with the work not `DONE`. Says where the run was when it happened.
   */
  LimitReached: z.object({
    limit: RunLimitName,
    value: z.number().int().min(0),
    stage: Stage,
    iteration: z.number().int().min(0),
  }),
  /** `limit`: the last bound that ran out, when one did (the run ended on it rather than on a `DONE`). */
  /** `cause`: why a run ended `NEEDS_WORK` (rules version 2 on, docs/decisions/0056). */
  RunCompleted: z.object({ deliveryState: DeliveryState, answer: z.string(), limit: RunLimitName.optional(), cause: z.string().max(2_000).optional() }),
  RunFailed: z.object({ code: ErrorCode, reason: z.string(), stage: Stage.optional() }),
  /** Someone stopped the run: nothing is decided after it; answers that were in flight are still recorded. */
  RunCancelled: z.object({ by: CancelledBy, reason: z.string().max(500), stage: Stage.optional() }),
  /**
   * Someone took a cancelled run up again (`runs resume`): it goes on from where it was cancelled; the
   * tool calls the cancellation cut off are answered to the model as interrupted, never run again.
   */
  RunContinued: z.object({ by: CancelledBy }),
};

export const runEvents = eventFamily(runEventSchemas);
export type RunEventType = keyof typeof runEventSchemas;
export type RunEvent = EventUnion<typeof runEventSchemas>;
