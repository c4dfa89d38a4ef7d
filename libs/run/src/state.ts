import {
  DeliveryState,
  EventData,
  HistorySummary,
  QAReport,
  ReasoningOutcome,
  RunCancellation,
  RunLimitName,
  Stage,
  StagePolicy,
} from '@stagecraft/contracts';
import { SequenceState, SourcedMessage, SourcedOutcome } from '@stagecraft/contracts';

export type RunStart = EventData<'RunStarted'>;
export type ModelRequestRecord = EventData<'ModelRequested'>;
export type ModelResponse = EventData<'ModelResponded'>;

export interface OpenToolCall {
  callId: string;
  /** The id the model gave the call, which its tool-result message echoes. */
  modelCallId: string;
  tool: EventData<'ToolCallRequested'>['tool'];
  arguments: Record<string, unknown>;
  /** A person approved the call (`approve`): it runs without being asked about again. */
  approved?: true;
}

/** A tool call held back until a person answers: `ApprovalRequested` as stored, and when it was asked. */
export type AwaitedApproval = EventData<'ApprovalRequested'> & { callId: string; requestedAt?: string };

export interface Delegation {
  agentType: string;
  agentPrompt: string;
  markIntermediate: boolean;
}

/** Where a stage is between two commits. */
export type StageStep =
  | { kind: 'ask' }
  /** A request stored without its answer (a log from before requests and answers were stored together). */
  | { kind: 'asked'; requestId: string }
  /** An answer stored without its meaning (the same older logs). */
  | { kind: 'answered'; response: ModelResponse }
  | { kind: 'tools'; open: readonly [OpenToolCall, ...OpenToolCall[]] };

export interface StageState {
  stage: Stage;
  iteration: number;
  policy: StagePolicy;
  contextId: string;
  /** Corrections asked for in this stage entry; bounded by `maxCorrectionsPerStage`. */
  corrections: number;
  step: StageStep;
}

/** A conversation's turns before this run: the conversation's own summary, if it has one, and the turns after it. */
export interface PriorTurns {
  summary: HistorySummary | null;
  messages: readonly SourcedMessage[];
}

export const NO_PRIOR_TURNS: PriorTurns = { summary: null, messages: [] };

export interface RunCompaction {
  summary: HistorySummary;
  /** Leading messages of `[...prior.messages, ...history]` the summary stands for. */
  replaced: number;
  count: number;
  /** The last revision of the run stream the summaries have drawn on; -1 for none. */
  runThrough: number;
}

/** What every started run carries, whatever its status. */
export interface RunProgress {
  start: RunStart;
  /** The earlier turns `start.historyThrough` refers to, loaded by the shell from the conversation stream. */
  prior: PriorTurns;
  /** This run's messages, each with its revision on the run stream. */
  history: readonly SourcedMessage[];
  /** Every reasoning outcome the run recorded, with its revision. */
  outcomes: readonly SourcedOutcome[];
  /** Events folded so far: the revision the next event of the run stream gets. */
  events: number;
  messageCount: number;
  modelRequests: number;
  /** The message hashes of the run's latest recorded request: the next one is recorded as its difference from them. */
  requestHashes: readonly string[];
  /** The latest compaction: its summary stands for the first `replaced` messages of `[...prior.messages, ...history]`. */
  compaction: RunCompaction | null;
  toolLog: readonly string[];
  /** The latest `ToolCallCompleted`'s output: the tool-result message after it may stand for it (`outputOf`). */
  lastToolOutput?: { callId: string; output: string };
  lastOutcome: ReasoningOutcome | null;
  deliveryChecks: number;
  deliveryState: DeliveryState | null;
  /** The last bound of the run that ran out (`LimitReached`), if one did. */
  limitReached: RunLimitName | null;
  /** Why the latest delivery check did not say `DONE` (rules version 2); absent once it did, or before any check. */
  gateReason?: string;
  /** The latest user-visible answer of the acting stages. */
  answer: string | null;
  qaReport: QAReport | null;
  delegations: readonly Delegation[];
  /** The approval the run waits for; while set, the run does nothing until a person answers. */
  pendingApproval: AwaitedApproval | null;
  sequences: SequenceState;
  /** The stage the run is in; `null` before its first `StageEntered` (see `Starting`). */
  current: StageState | null;
}

/**
 * Running, before the first stage is entered: only between `RunStarted` and the first `StageEntered`
 * of the same commit, or where a log of an older version stopped (`RunResumed` enters the stage).
 */
export type Starting = { status: 'running' } & RunProgress & { current: null };
/** Running inside a stage: where every model call, tool call and review of a run happens. */
export type InStage = { status: 'running' } & RunProgress & { current: StageState };
export type Running = Starting | InStage;

export type RunState =
  | { status: 'new' }
  | Running
  | ({ status: 'completed'; answer: string; deliveryState: DeliveryState } & Omit<RunProgress, 'answer' | 'deliveryState'>)
  | ({ status: 'failed'; failure: { code: string; reason: string } } & RunProgress)
  /** Stopped by someone: nothing more is decided; answers that were in flight are still recorded (`recordLate`). */
  | ({ status: 'cancelled'; cancellation: RunCancellation } & RunProgress);

export const initialRunState = (): RunState => ({ status: 'new' });

export const inStage = (state: RunState): state is InStage => state.status === 'running' && state.current !== null;

/** The earlier turns are loaded by the shell, not stored on the run stream: folded states get them here. */
export const withPrior = (state: RunState, prior: PriorTurns): RunState =>
  state.status === 'new' || state.prior === prior ? state : { ...state, prior };
