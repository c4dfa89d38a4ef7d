import { runEvents } from '@stagecraft/contracts';
import type { DeliveryState, EventData, Projection, RunEvent, RunRecord, TokensByModel } from '@stagecraft/contracts';
import { Logged, entryOf, runEventOf } from '../logged';

/**
 * A run as the view keeps it: its record, the model each unanswered request went to, and the project
 * it works in (which decides who may see it; absent in entries folded before roots were kept).
 */
export interface RunEntry extends RunRecord {
  open: Record<string, string>;
  projectRoot?: string;
}

export interface RunsView {
  runs: Record<string, RunEntry>;
  /** Run ids in the order the runs started: newest first is this, backwards. */
  started: string[];
  /**
   * The project of each conversation: its first run's root, which owns the conversation's history.
   * Absent in views checkpointed before it was kept.
   */
  conversations?: Record<string, string>;
}

/** Tokens of a response whose request this view never saw (a log that does not start at the run's start). */
export const UNKNOWN_MODEL = 'unknown';
/** The reviewer's calls in logs whose `QAReportIssued` recorded their usage but not their model: never priced. */
export const QA_MODEL = 'qa';

type Usage = NonNullable<EventData<'ModelResponded'>['usage']>;

function withUsage(tokens: TokensByModel, model: string, usage: Usage | undefined): TokensByModel {
  if (!usage) return tokens;
  const sum = entryOf(tokens, model) ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  // Kept only once some call reported it, so a view of older logs reads as it always did.
  const cached =
    sum.cachedPromptTokens === undefined && usage.cachedPromptTokens === undefined
      ? {}
      : { cachedPromptTokens: (sum.cachedPromptTokens ?? 0) + (usage.cachedPromptTokens ?? 0) };
  return {
    ...tokens,
    [model]: {
      promptTokens: sum.promptTokens + usage.promptTokens,
      completionTokens: sum.completionTokens + usage.completionTokens,
      totalTokens: sum.totalTokens + usage.totalTokens,
      ...cached,
    },
  };
}

/** A `DONE` delivery is never turned back. */
const delivered = (current: DeliveryState | null, next: DeliveryState): DeliveryState => (current === 'DONE' ? 'DONE' : next);

function started(runId: string, event: Logged<Extract<RunEvent, { type: 'RunStarted' }>>): RunEntry {
  const { conversationId, userMode, reasoningEnabled, projectRoot, agent } = event.data;
  const at = event.metadata.occurredAt;
  return {
    runId,
    conversationId,
    userMode,
    reasoningEnabled,
    status: 'running',
    stage: null,
    startedAt: at,
    updatedAt: at,
    endedAt: null,
    modelCalls: 0,
    tokens: {},
    deliveryState: null,
    qaVerdict: null,
    failure: null,
    open: {},
    projectRoot,
    ...(agent ? { workflowId: agent.workflowId } : {}),
  };
}

/** The entry without a pending approval: the approval was answered, or the run ended. */
function answered(next: RunEntry): RunEntry {
  const { pendingApproval: _answered, ...rest } = next;
  return rest;
}

/** Only a running run ends, and it ends once; either way no request of it is still waited for. */
function end(next: RunEntry, status: 'completed' | 'failed' | 'cancelled'): boolean {
  next.open = {};
  delete next.pendingApproval;
  if (next.status !== 'running') return false;
  next.status = status;
  next.endedAt = next.updatedAt;
  return true;
}

/**
 * One event of a started run: a new entry (the one given is never changed). `next` is a copy made
 * for this event, so filling it in is safe: nobody has seen it yet.
 */
function evolveRun(run: RunEntry, event: Logged<RunEvent>): RunEntry {
  const next: RunEntry = { ...run, updatedAt: event.metadata.occurredAt };
  switch (event.type) {
    case 'StageEntered':
      next.stage = event.data.stage;
      return next;
    case 'ModelRequested':
      next.open = { ...run.open, [event.data.requestId]: event.data.model };
      return next;
    case 'ModelResponded': {
      const { requestId, usage } = event.data;
      const { [requestId]: _answered, ...open } = run.open;
      next.open = open;
      next.modelCalls += 1;
      next.tokens = withUsage(run.tokens, entryOf(run.open, requestId) ?? UNKNOWN_MODEL, usage);
      return next;
    }
    case 'HistoryCompacted': {
      const call = event.data.modelCall;
      // Counted once there is one, so a view of a run that never compacted reads as it always did.
      next.compactions = (run.compactions ?? 0) + 1;
      if (!call) return next;
      next.modelCalls += 1;
      next.tokens = withUsage(run.tokens, call.model, call.usage);
      return next;
    }
    case 'QAReportIssued': {
      const calls = event.data.modelCalls ?? [];
      next.qaVerdict = event.data.report.verdict;
      next.modelCalls += calls.length;
      next.tokens = calls.reduce((sum, call) => withUsage(sum, call.model || QA_MODEL, call.usage), run.tokens);
      return next;
    }
    case 'DeliveryChecked':
      next.deliveryState = delivered(run.deliveryState, event.data.state);
      return next;
    case 'RunCompleted':
      end(next, 'completed');
      next.deliveryState = delivered(run.deliveryState, event.data.deliveryState);
      if (event.data.limit) next.limit = event.data.limit;
      if (event.data.cause) next.cause = event.data.cause;
      return next;
    case 'RunFailed':
      if (end(next, 'failed')) next.failure = { code: event.data.code, reason: event.data.reason };
      return next;
    case 'RunCancelled':
      if (end(next, 'cancelled')) next.cancellation = { by: event.data.by, reason: event.data.reason };
      return next;
    case 'RunContinued':
      // Taken up again after a cancellation: running once more, until it ends again.
      if (run.status !== 'cancelled') return next;
      next.status = 'running';
      next.endedAt = null;
      next.cancellation = null;
      return next;
    case 'ApprovalRequested':
      // A tool call waits for a person: the run is waiting, not stuck.
      if (event.data.callId !== undefined) next.pendingApproval = { ...event.data, requestedAt: event.metadata.occurredAt };
      return next;
    case 'ApprovalGiven':
    case 'ApprovalDenied':
      return run.pendingApproval?.approvalId === event.data.approvalId ? answered(next) : next;
    case 'RunStarted':
    case 'LimitReached':
    case 'ReasoningRecorded':
    case 'InstructionIssued':
    case 'ToolCallRequested':
    case 'ToolCallCompleted':
    case 'ToolCallRejected':
    case 'MessageAppended':
      return next;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/**
 * The run events whose data the view reads, and the tool results: every commit of a run holds at least
 * one of them (a stage entry, a model step, a tool result, an approval asked for or answered, a check,
 * the end), so `updatedAt` is still the
 * time of the run's latest commit. Messages, reasoning and tool requests, the bulk of a log, are never
 * read or parsed for this view.
 */
const RUN_STEPS = [
  'RunStarted',
  'StageEntered',
  'ModelRequested',
  'ModelResponded',
  'HistoryCompacted',
  'ToolCallCompleted',
  'ToolCallRejected',
  'DeliveryChecked',
  'QAReportIssued',
  'ApprovalRequested',
  'ApprovalGiven',
  'ApprovalDenied',
  'RunCompleted',
  'RunFailed',
  'RunCancelled',
  'RunContinued',
] as const satisfies readonly (typeof runEvents.types)[number][];

/**
 * Every run: status, stage, times, model calls and tokens by model, delivery, QA verdict, failure,
 * and the approval a running run waits for.
 * `updatedAt` is the time of the run's latest commit (`RUN_STEPS`). The fold
 * owns its view: it replaces one run's entry in place and appends to `started` (copying every run per
 * event would make a rebuild quadratic), and never changes an entry it has handed out. Events of a run
 * whose `RunStarted` it has not seen are passed over.
 */
export const runsModel: Projection<RunsView> = {
  // Renamed from `memory-runs` when the reviewer's tokens moved from `qa` to the model that answered: a
  // checkpoint folded the old way is left behind and the view is rebuilt once, so `replay --verify` agrees.
  name: 'memory-runs-v2',
  handles: RUN_STEPS,
  initialState: () => ({ runs: {}, started: [], conversations: {} }),
  evolve(view, logged) {
    const found = runEventOf(logged);
    if (!found) return view;
    const { runId, event } = found;
    const run = entryOf(view.runs, runId);
    if (run) view.runs[runId] = evolveRun(run, event);
    else if (event.type === 'RunStarted') {
      view.runs[runId] = started(runId, event);
      view.started.push(runId);
      const conversations = (view.conversations ??= {});
      if (!entryOf(conversations, event.data.conversationId)) conversations[event.data.conversationId] = event.data.projectRoot;
    }
    return view;
  },
};

/** The record a caller sees: the entry without what the fold keeps for itself. */
export function recordOf(entry: RunEntry): RunRecord {
  const { open: _open, projectRoot: _projectRoot, ...record } = entry;
  return record;
}

/** The project a run works in; null for a run the view does not know, or folded before roots were kept. */
export const rootOfRun = (view: RunsView, runId: string): string | null => entryOf(view.runs, runId)?.projectRoot ?? null;

/** The project a conversation belongs to (its first run's); null for one the view does not know. */
export const rootOfConversation = (view: RunsView, conversationId: string): string | null =>
  entryOf(view.conversations ?? {}, conversationId) ?? null;
