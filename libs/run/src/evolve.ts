import { ChatMessage, EventData, StagecraftError, ToolCall, expandMessageHashes, streams } from '@stagecraft/contracts';
import { PendingEvent } from './pending-event';
import { EMPTY_SEQUENCES, observeContextId } from '@stagecraft/contracts';
import { isAnswer, toolLogLine } from './rules';
import { NO_PRIOR_TURNS, OpenToolCall, RunState, StageState } from './state';

/** A run event with or without its metadata: deciding folds events before they are stored. */
type RunEventIn = PendingEvent & { metadata?: unknown };

export const toChatMessage = (d: EventData<'MessageAppended'>): ChatMessage => ({
  role: d.role === 'system' ? 'user' : d.role,
  content: d.content,
  ...(d.toolCalls?.length ? { toolCalls: d.toolCalls as ToolCall[] } : {}),
  ...(d.toolCallId ? { toolCallId: d.toolCallId } : {}),
});

/**
 * A tool-result message with its content: one that stands for the output of the `ToolCallCompleted`
 * before it (`outputOf`, docs/decisions/0049) gets that output; any other is as stored.
 */
export function withOutput(
  d: EventData<'MessageAppended'>,
  completed: { callId: string; output: string } | undefined,
): EventData<'MessageAppended'> {
  if (d.outputOf === undefined) return d;
  if (completed?.callId !== d.outputOf)
    throw new StagecraftError('INTERNAL', `message ${d.messageId} stands for the output of ${d.outputOf}, which does not precede it`);
  return { ...d, content: completed.output };
}

/**
 * The run's messages as sent to the model, every one with its content: for readers of a run stream's
 * raw events (restoring the requests a run sent, audits). A reference that does not resolve (an edited
 * log, which the hash chain names) is left as stored rather than stopping the reader.
 */
export function messagesWithOutputs<E extends { type: string; data: unknown }>(events: readonly E[]): E[] {
  let completed: { callId: string; output: string } | undefined;
  return events.map((e) => {
    if (e.type === 'ToolCallCompleted') {
      const { callId, output } = e.data as EventData<'ToolCallCompleted'>;
      completed = { callId, output };
    }
    if (e.type !== 'MessageAppended') return e;
    const data = e.data as EventData<'MessageAppended'>;
    return data.outputOf === undefined || completed?.callId !== data.outputOf ? e : { ...e, data: withOutput(data, completed) };
  });
}

function started(data: EventData<'RunStarted'>): RunState {
  return {
    status: 'running',
    start: data,
    prior: NO_PRIOR_TURNS,
    history: [],
    outcomes: [],
    events: 1,
    messageCount: 0,
    modelRequests: 0,
    requestHashes: [],
    compaction: null,
    toolLog: [],
    lastOutcome: null,
    deliveryChecks: 0,
    deliveryState: null,
    limitReached: null,
    answer: null,
    qaReport: null,
    delegations: [],
    pendingApproval: null,
    sequences: EMPTY_SEQUENCES,
    current: null,
  };
}

/** When a stored event occurred; events being decided have no metadata yet. */
const occurredAt = (event: RunEventIn): string | undefined => {
  const at = (event.metadata as { occurredAt?: unknown } | undefined)?.occurredAt;
  return typeof at === 'string' ? at : undefined;
};

/** The open tool calls with `callId`'s changed by `change`. */
function withOpenCall(current: StageState | null, callId: string, change: (call: OpenToolCall) => OpenToolCall): StageState | null {
  if (current?.step.kind !== 'tools') return current;
  const open = current.step.open.map((c) => (c.callId === callId ? change(c) : c));
  return withStep(current, { kind: 'tools', open: [open[0], ...open.slice(1)] });
}

const withStep = (current: StageState | null, step: StageState['step']): StageState | null => (current ? { ...current, step } : null);

/** One event applied to a running run. Every rule it uses lives in `rules.ts`. */
function evolveRunning(s: Extract<RunState, { status: 'running' }>, event: RunEventIn): RunState {
  switch (event.type) {
    case 'StageEntered': {
      const { stage, iteration, contextId } = event.data;
      const policy = event.data.policy ?? s.current?.policy;
      if (!policy) throw new StagecraftError('INTERNAL', `stage ${stage} was entered without a policy, and no stage before it had one`);
      return {
        ...s,
        sequences: observeContextId(s.sequences, contextId),
        current: { stage, iteration, policy, contextId, corrections: 0, step: { kind: 'ask' } },
      };
    }
    case 'ModelRequested':
      return {
        ...s,
        modelRequests: s.modelRequests + 1,
        requestHashes: expandMessageHashes(event.data.messageHashes, s.requestHashes),
        current: withStep(s.current, { kind: 'asked', requestId: event.data.requestId }),
      };
    case 'ModelResponded':
      return { ...s, current: withStep(s.current, { kind: 'answered', response: event.data }) };
    case 'ReasoningRecorded':
      return {
        ...s,
        lastOutcome: event.data.outcome,
        outcomes: [...s.outcomes, { outcome: event.data.outcome, stream: streams.run(s.start.runId), revision: s.events - 1 }],
      };
    case 'MessageAppended': {
      const message = {
        message: toChatMessage(withOutput(event.data, s.lastToolOutput)),
        kind: event.data.kind,
        stream: streams.run(s.start.runId),
        revision: s.events - 1,
      };
      const next = { ...s, messageCount: s.messageCount + 1, history: [...s.history, message] };
      if (s.current && event.data.kind === 'correction')
        return { ...next, current: { ...s.current, corrections: s.current.corrections + 1, step: { kind: 'ask' } } };
      const answer = isAnswer(s, event.data) ? event.data.content : s.answer;
      // A message means the model's last answer has been read: the stage asks again unless tools are open.
      const step = s.current?.step.kind === 'tools' ? s.current.step : { kind: 'ask' as const };
      return { ...next, answer, current: withStep(s.current, step) };
    }
    case 'ToolCallRequested': {
      const { callId, tool, arguments: args, modelCallId } = event.data;
      const call = { callId, tool, arguments: args, modelCallId: modelCallId ?? callId };
      const open = s.current?.step.kind === 'tools' ? [...s.current.step.open, call] : [call];
      return { ...s, current: withStep(s.current, { kind: 'tools', open: [open[0], ...open.slice(1)] }) };
    }
    case 'ToolCallCompleted':
    case 'ToolCallRejected': {
      const toolLog = [...s.toolLog, toolLogLine(event)];
      const { callId } = event.data;
      const recorded =
        event.type === 'ToolCallCompleted' ? { ...s, toolLog, lastToolOutput: { callId, output: event.data.output } } : { ...s, toolLog };
      if (s.current?.step.kind !== 'tools') return recorded;
      const open = s.current.step.open.filter((c) => c.callId !== callId);
      return {
        ...recorded,
        current: withStep(s.current, open.length ? { kind: 'tools', open: [open[0], ...open.slice(1)] } : { kind: 'ask' }),
      };
    }
    case 'DeliveryChecked':
      // DONE is authoritative: nothing after it can turn it back into NEEDS_WORK.
      return {
        ...s,
        deliveryChecks: s.deliveryChecks + 1,
        deliveryState: s.deliveryState === 'DONE' ? 'DONE' : event.data.state,
        ...(event.data.state === 'DONE' ? { gateReason: undefined } : { gateReason: event.data.reason }),
      };
    case 'QAReportIssued':
      return { ...s, qaReport: event.data.report };
    case 'LimitReached':
      return { ...s, limitReached: event.data.limit };
    case 'InstructionIssued': {
      const i = event.data.instruction;
      if (!event.data.accepted) return s;
      if (i.kind === 'DelegateReasoning')
        return {
          ...s,
          delegations: [...s.delegations, { agentType: i.agentType, agentPrompt: i.agentPrompt, markIntermediate: i.markIntermediate }],
        };
      if (i.kind === 'ReturnControl') return { ...s, delegations: s.delegations.slice(0, -1) };
      return s;
    }
    case 'RunCompleted':
      return {
        ...s,
        status: 'completed',
        answer: event.data.answer,
        pendingApproval: null,
        deliveryState: s.deliveryState === 'DONE' ? 'DONE' : event.data.deliveryState,
      };
    case 'RunFailed':
      return { ...s, status: 'failed', failure: { code: event.data.code, reason: event.data.reason }, pendingApproval: null };
    case 'RunContinued':
      return s;
    case 'RunCancelled':
      return { ...s, status: 'cancelled', cancellation: { by: event.data.by, reason: event.data.reason }, pendingApproval: null };
    case 'HistoryCompacted': {
      const run = streams.run(s.start.runId);
      const drawnOn = event.data.covers.filter((r) => r.stream === run).map((r) => r.to);
      const compaction = {
        summary: event.data.summary,
        replaced: (s.compaction?.replaced ?? 0) + event.data.replaced,
        count: (s.compaction?.count ?? 0) + 1,
        runThrough: Math.max(s.compaction?.runThrough ?? -1, ...drawnOn),
      };
      return { ...s, compaction };
    }
    case 'ApprovalRequested': {
      const { callId } = event.data;
      // Only a tool call waits inside a run; the workflow's gates are on its own stream.
      if (callId === undefined) return s;
      const requestedAt = occurredAt(event);
      return { ...s, pendingApproval: { ...event.data, callId, ...(requestedAt ? { requestedAt } : {}) } };
    }
    case 'ApprovalGiven': {
      const awaited = s.pendingApproval;
      if (awaited?.approvalId !== event.data.approvalId) return s;
      return { ...s, pendingApproval: null, current: withOpenCall(s.current, awaited.callId, (c) => ({ ...c, approved: true })) };
    }
    case 'ApprovalDenied':
      // The refusal that follows in the same commit closes the call.
      return s.pendingApproval?.approvalId === event.data.approvalId ? { ...s, pendingApproval: null } : s;
    case 'RunStarted':
      return s;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** The one fold of a run: every reader of a run stream folds with this. Events of other streams are ignored. */
export function evolveRun(state: RunState, event: RunEventIn): RunState {
  if (state.status === 'new') return event.type === 'RunStarted' ? started(event.data) : state;
  if (state.status === 'cancelled') return evolveCancelled(state, event);
  if (state.status !== 'running') return state;
  const next = evolveRunning({ ...state, events: state.events + 1 }, event);
  return next;
}

/** What a cancelled run still records: the answers that were in flight when it was cancelled. */
const LATE_ANSWERS: ReadonlySet<string> = new Set(['ModelRequested', 'ModelResponded', 'ToolCallCompleted', 'ToolCallRejected']);

/** A late answer closes what it answers (a call is answered once); the run stays cancelled. */
function evolveCancelled(state: Extract<RunState, { status: 'cancelled' }>, event: RunEventIn): RunState {
  const { cancellation, ...progress } = state;
  if (event.type === 'RunContinued') return { ...progress, status: 'running', events: state.events + 1 };
  if (!LATE_ANSWERS.has(event.type)) return state;
  const next = evolveRunning({ ...progress, status: 'running', events: state.events + 1 }, event);
  return next.status === 'running' ? { ...next, status: 'cancelled', cancellation } : next;
}

export const foldRun = (events: readonly RunEventIn[]): RunState => events.reduce(evolveRun, { status: 'new' } as RunState);
