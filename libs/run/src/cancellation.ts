import { EventData, StagecraftError, ToolResult, toolErrorText } from '@stagecraft/contracts';
import { RunDecision } from './run-decision';
import { RunInput } from './inputs';
import { isRefusal } from './rules';
import { OpenToolCall, RunState } from './state';

type Cancelled = Extract<RunState, { status: 'cancelled' }>;

/** What `RunCancelled.reason` holds at most; a longer reason (a workflow's, which quotes its own) is cut. */
export const MAX_CANCEL_REASON = 500;

/** Cancels a running run; a run that has ended already stays as it ended (nothing is appended). */
export function cancel(decision: RunDecision, input: Extract<RunInput, { type: 'RunCancelled' }>): void {
  const { state } = decision;
  if (state.status === 'new') throw new StagecraftError('NOT_FOUND', 'no such run');
  if (state.status !== 'running') return;
  const reason = input.reason.length > MAX_CANCEL_REASON ? `${input.reason.slice(0, MAX_CANCEL_REASON - 1)}…` : input.reason;
  decision.add('RunCancelled', { by: input.by, reason, stage: state.current?.stage });
  // Only the first open call can be running (the calls run one at a time, and none while it waits for a
  // person): the others are closed now, as never made.
  const step = state.current?.step;
  if (step?.kind !== 'tools') return;
  const awaited = state.pendingApproval?.callId;
  closeNeverMade(
    decision,
    step.open.filter((call, i) => i > 0 || call.callId === awaited),
  );
}

/** Why a call a cancelled run never made is closed; `ToolCallRejected` with `CONFLICT` says it on the run. */
export const NEVER_MADE = 'not made: the run was cancelled (a record of an earlier attempt, if any, is on its toolcall stream)';

function closeNeverMade(decision: RunDecision, calls: readonly OpenToolCall[]): void {
  const stage = decision.state.status === 'new' ? undefined : decision.state.current?.stage;
  if (!stage) return;
  for (const call of calls)
    decision.add('ToolCallRejected', { callId: call.callId, tool: call.tool, stage, code: 'CONFLICT', reason: NEVER_MADE });
}

/** A tool call's result as the run records it: `interrupted` only when the call was cut off, `changes` only when a write changed files. */
export function completedCall(callId: string, result: ToolResult): EventData<'ToolCallCompleted'> {
  const { tool, ok, output, truncated, durationMs, interrupted, changes } = result;
  return {
    callId,
    tool,
    ok,
    output,
    truncated,
    durationMs,
    ...(interrupted ? { interrupted } : {}),
    ...(changes?.length ? { changes } : {}),
  };
}

/**
 * A cancelled run decides nothing more, but what was in flight when it was cancelled still happened:
 * a tool call's result (interrupted, usually) and a model call's request and answer are recorded, once,
 * so the log says what the call did and the call is never run again. Anything else is dropped; a
 * person's answer to an approval the run no longer waits for is a conflict.
 */
export function recordLate(input: RunInput, state: Cancelled, decision: RunDecision): void {
  const { current } = state;
  const step = current?.step ?? null;
  const open = (callId: string) => (step?.kind === 'tools' ? step.open.find((c) => c.callId === callId) : undefined);
  switch (input.type) {
    case 'ToolAnswered': {
      const call = open(input.callId);
      if (!call) return;
      decision.add('ToolCallCompleted', completedCall(call.callId, input.result));
      return;
    }
    case 'ToolCallFailed': {
      const call = open(input.callId);
      if (!call || !current) return;
      const { code, message } = input.fault;
      if (isRefusal(input.fault)) {
        decision.add('ToolCallRejected', { callId: call.callId, tool: call.tool, stage: current.stage, code, reason: message });
        return;
      }
      const output = toolErrorText({ code: 'INTERRUPTED', problem: `the run was cancelled during the call (${message})`, retry: 'none' });
      decision.add('ToolCallCompleted', {
        callId: call.callId,
        tool: call.tool,
        ok: false,
        output,
        truncated: false,
        durationMs: 0,
        interrupted: true,
      });
      return;
    }
    case 'ModelAnswered':
      if (step?.kind !== 'ask' && step?.kind !== 'asked') return;
      if (input.request) decision.add('ModelRequested', input.request);
      decision.add('ModelResponded', input.response);
      return;
    case 'ModelCallFailed':
      if (input.request && step?.kind === 'ask') decision.add('ModelRequested', input.request);
      return;
    case 'ApprovalAnswered':
    case 'RunRequested':
      throw new StagecraftError('CONFLICT', `run ${state.start.runId} was cancelled`);
    case 'RunStopped':
      // The driver has stopped: a call still open was never made by it.
      if (step?.kind === 'tools') closeNeverMade(decision, step.open);
      return;
    case 'RunCancelled':
    case 'RunContinued':
    case 'RunResumed':
    case 'ReviewReturned':
    case 'ReviewFailed':
      return;
    default: {
      const unreachable: never = input;
      throw new StagecraftError('INTERNAL', `unknown input ${JSON.stringify(unreachable)}`);
    }
  }
}
