import { StagePolicy, canonicalJson } from '@stagecraft/contracts';
import { parseContextId } from '@stagecraft/contracts';
import { Outcome, outcomeOf } from '@stagecraft/decider';
import { runDecider } from './decide';
import { evolveRun, foldRun } from './evolve';
import { Knowledge, Need, RunInput, delegationKey } from './inputs';
import { RunLimits } from './limits';
import { nextStep } from './next-step';
import { PendingEvent } from './pending-event';
import { NO_PRIOR_TURNS, PriorTurns, RunState, withPrior } from './state';

/** A recorded run event: its type and data, and when it was stored. */
export type RecordedRunEvent = PendingEvent & { metadata?: { occurredAt?: string } };

export type ReplayResult =
  /** `copied`: the head a forked run copied from another run, taken as recorded. */
  | { identical: true; events: number; decisions: number; copied?: number }
  | { identical: false; index: number; expected: RecordedRunEvent | null; actual: PendingEvent | null; why: string };

const REVIEW_NOT_COMPLETED = 'QA review could not be completed: ';

/** JSON as stored: a field left `undefined` and a missing field read the same. */
const stored = (event: PendingEvent | null) =>
  event ? canonicalJson(JSON.parse(JSON.stringify({ type: event.type, data: event.data }))) : 'nothing';

/**
 * Re-drives a recorded run through the run's decider: each step's input is rebuilt from what the log says the
 * model, the tools and the reviewer answered, the policies are the ones the log recorded, and a
 * recovery prompt's text is read back from the correction it produced. No model is called and no tool
 * runs. The result is the same events, or the first one that differs.
 */
export function replayRun(recorded: readonly RecordedRunEvent[], defaults: RunLimits, prior: PriorTurns = NO_PRIOR_TURNS): ReplayResult {
  const first = recorded[0];
  // A run that recorded its bounds is decided again with them; an older one with the defaults given.
  const limits = { ...defaults, ...(first?.type === 'RunStarted' ? first.data.limits : undefined) };
  const knowledge = recordedKnowledge(recorded);
  const copied = copiedHead(recorded);
  let state: RunState = withPrior(foldRun(recorded.slice(0, copied)), prior);
  let index = copied;
  let decisions = 0;
  for (;;) {
    const input = inputAt(state, recorded, index, prior);
    if (input === null) {
      if (index === recorded.length) return { identical: true, events: index, decisions, ...(copied > 0 ? { copied } : {}) };
      return { identical: false, index, expected: recorded[index], actual: null, why: 'the run ended here; the log goes on' };
    }
    let decision: Outcome<PendingEvent, Need>;
    try {
      const context = { limits, knowledge: knowledge.at(recorded, index) };
      decision = outcomeOf(() => runDecider.decide(input, state, context));
    } catch (error) {
      return { identical: false, index, expected: recorded[index] ?? null, actual: null, why: `decide threw: ${(error as Error).message}` };
    }
    if ('needs' in decision) {
      return {
        identical: false,
        index,
        expected: recorded[index] ?? null,
        actual: null,
        why: `the decision needs ${decision.needs.kind} the log does not hold`,
      };
    }
    decisions += 1;
    for (const event of decision.events) {
      const expected = recorded[index] ?? null;
      if (stored(event) !== stored(expected)) return { identical: false, index, expected, actual: event, why: 'events differ' };
      state = withPrior(evolveRun(state, event), prior);
      index += 1;
    }
  }
}

/** A forked run's stream starts with a copy of another run's events up to the fork point: how many. */
function copiedHead(recorded: readonly RecordedRunEvent[]): number {
  const first = recorded[0];
  return first?.type === 'RunStarted' && first.data.forkedFrom ? first.data.forkedFrom.revision + 1 : 0;
}

/** The policies every stage entry recorded, per delegation chain; a correction's prompt text as the log holds it. */
function recordedKnowledge(recorded: readonly RecordedRunEvent[]) {
  const tables = new Map<string, StagePolicy[]>();
  for (const e of recorded) {
    // An entry without a policy kept the one before it, which is in the table already.
    if (e.type !== 'StageEntered' || !e.data.policy) continue;
    const { policy } = e.data;
    const key = delegationKey(policy.delegation);
    tables.set(key, [...(tables.get(key) ?? []).filter((p) => p.stage !== policy.stage), policy]);
  }
  return {
    at(log: readonly RecordedRunEvent[], index: number): Knowledge {
      return {
        policies: (delegation) => tables.get(delegationKey(delegation)),
        prompt: () => {
          const correction = log.slice(index).find((e) => e.type === 'MessageAppended' && e.data.kind === 'correction');
          if (correction?.type !== 'MessageAppended') return undefined;
          const end = correction.data.content.lastIndexOf('\n\n(');
          return end < 0 ? correction.data.content : correction.data.content.slice(0, end);
        },
        summary: (compactionId) => {
          const made = log.slice(index).find((e) => e.type === 'HistoryCompacted' && e.data.compactionId === compactionId);
          if (made?.type !== 'HistoryCompacted') return undefined;
          const { summary, modelCall } = made.data;
          // A model summary is taken as recorded; one that fell back to the extractive method is made again.
          return made.data.method === 'model' && modelCall ? { summary, modelCall } : { failed: 'recorded as extractive' };
        },
      };
    },
  };
}

/** When the shell observed the next input: the time in the next stage entry's context id, or when the next event was stored. */
function timeAt(recorded: readonly RecordedRunEvent[], index: number): string {
  const entry = recorded.find((e, i) => i >= index && e.type === 'StageEntered');
  if (entry?.type === 'StageEntered') return parseContextId(entry.data.contextId).timestamp;
  return recorded[index]?.metadata?.occurredAt ?? '1970-01-01T00:00:00.000Z';
}

/** The input the shell must have observed for the log to go on as recorded from `index`; null once the run is over. */
function inputAt(state: RunState, recorded: readonly RecordedRunEvent[], index: number, prior: PriorTurns): RunInput | null {
  const at = timeAt(recorded, index);
  const next = recorded[index];
  const after = recorded[index + 1];
  if (state.status === 'new') {
    if (next?.type !== 'RunStarted') return null;
    const { userInput, ...start } = next.data;
    // A log without a rules version was decided by version 1, and is decided by it again.
    return { type: 'RunRequested', ...start, rules: start.rules ?? 1, message: userInput, prior, at };
  }
  if (state.status === 'cancelled') {
    if (next?.type === 'RunContinued') return { type: 'RunContinued', by: next.data.by, at };
    return next ? lateAnswer(next, after, at) : null;
  }
  const step = nextStep(state);
  if (step.kind === 'finished' || !next) return null;
  if (next.type === 'RunCancelled') return { type: 'RunCancelled', by: next.data.by, reason: next.data.reason, at };
  // A failure on its own says the same whatever stopped the run: a refused model call, a tool error, the shell.
  if (next.type === 'RunFailed') return { type: 'RunStopped', fault: { code: next.data.code, message: next.data.reason }, at };
  switch (step.kind) {
    case 'resume':
      return { type: 'RunResumed', at };
    case 'call_model': {
      const request = step.plan.record && next.type === 'ModelRequested' ? next.data : undefined;
      const answer = request ? after : next;
      if (answer?.type === 'ModelResponded') return { type: 'ModelAnswered', request, response: answer.data, at };
      if (answer?.type === 'RunFailed')
        return { type: 'ModelCallFailed', request, fault: { code: answer.data.code, message: answer.data.reason }, at };
      return {
        type: 'RunStopped',
        fault: { code: 'INTERNAL', message: `the log holds ${answer?.type ?? 'nothing'} where a model answer was due` },
        at,
      };
    }
    case 'run_tool': {
      const { callId } = step.request;
      if (next.type === 'ToolCallCompleted') return { type: 'ToolAnswered', callId, result: { ...next.data, replayed: false }, at };
      if (next.type === 'ToolCallRejected')
        return { type: 'ToolCallFailed', callId, fault: { code: next.data.code, message: next.data.reason }, at };
      return { type: 'RunStopped', fault: { code: 'INTERNAL', message: `the log holds ${next.type} where a tool result was due` }, at };
    }
    case 'review': {
      if (next.type !== 'QAReportIssued')
        return { type: 'RunStopped', fault: { code: 'INTERNAL', message: `the log holds ${next.type} where a review was due` }, at };
      const { report, modelCalls } = next.data;
      // A review that could not be completed left its reason in the report, and no model calls.
      if (modelCalls === undefined && report.summary.startsWith(REVIEW_NOT_COMPLETED)) {
        return { type: 'ReviewFailed', fault: { code: 'UNAVAILABLE', message: report.summary.slice(REVIEW_NOT_COMPLETED.length) }, at };
      }
      return { type: 'ReviewReturned', report, modelCalls: modelCalls ?? [], at };
    }
    case 'await_approval': {
      const { approvalId } = step.approval;
      if (next.type === 'ApprovalGiven') return { type: 'ApprovalAnswered', approvalId, decision: 'approve', reason: next.data.note, at };
      if (next.type === 'ApprovalDenied')
        return { type: 'ApprovalAnswered', approvalId, decision: 'deny', reason: next.data.reason || undefined, at };
      return {
        type: 'RunStopped',
        fault: { code: 'INTERNAL', message: `the log holds ${next.type} where an approval answer was due` },
        at,
      };
    }
    default: {
      const unreachable: never = step;
      return unreachable;
    }
  }
}

/** On a cancelled run: the answer that was in flight when it was cancelled, as the log recorded it; null for anything else. */
function lateAnswer(next: RecordedRunEvent, after: RecordedRunEvent | undefined, at: string): RunInput | null {
  switch (next.type) {
    case 'ToolCallCompleted':
      return { type: 'ToolAnswered', callId: next.data.callId, result: { ...next.data, replayed: false }, at };
    case 'ToolCallRejected':
      // Calls closed as never made are closed together, when the driver stopped.
      if (next.data.code === 'CONFLICT') return { type: 'RunStopped', fault: { code: 'CONFLICT', message: next.data.reason }, at };
      return { type: 'ToolCallFailed', callId: next.data.callId, fault: { code: next.data.code, message: next.data.reason }, at };
    case 'ModelRequested':
      if (after?.type === 'ModelResponded') return { type: 'ModelAnswered', request: next.data, response: after.data, at };
      return { type: 'ModelCallFailed', request: next.data, fault: { code: 'INTERNAL', message: 'cut off by the cancellation' }, at };
    case 'ModelResponded':
      return { type: 'ModelAnswered', response: next.data, at };
    default:
      return null;
  }
}
