import { createHash } from 'node:crypto';
import { ErrorCode, EventData, StagecraftError, ToolExecuteRequest, ToolResult, canonicalJson } from '@stagecraft/contracts';
import { Decider, needs } from '@stagecraft/decider';
import { decideStagePolicy } from '@stagecraft/policy';
import { failed, toolCallBudgetMs } from '@stagecraft/tools';
import type { ToolOutcome } from '@stagecraft/tools';

type Started = EventData<'ToolExecutionStarted'>;
type Finished = EventData<'ToolExecutionFinished'>;
type Refused = EventData<'ToolExecutionRefused'>;

/** A `toolcall-<callId>` event as the decider chooses it; the stream handler adds id and metadata. */
export type ToolCallDecided =
  | { type: 'ToolExecutionStarted'; data: Started }
  | { type: 'ToolExecutionFinished'; data: Finished }
  | { type: 'ToolExecutionRefused'; data: Refused };

/** What a `toolcall-<callId>` stream says about one call. */
export type ToolCallState =
  | { status: 'new' }
  | { status: 'started'; started: Started }
  | { status: 'finished'; started: Started; finished: Finished }
  | { status: 'refused'; refused: Refused };

export type ToolCallInput =
  /** Start the call the request names, or refuse it when its stage's policy or its project root does not allow it. */
  | { type: 'StartCall'; request: ToolExecuteRequest }
  | { type: 'FinishCall'; outcome: ToolOutcome; durationMs: number }
  /** The call was cut off (its service stopped, its run was cancelled): its effect is unknown. */
  | { type: 'InterruptCall'; why: string };

/** Whether the request's project root may be worked in: a fact only the file system knows, asked for with `needs`. */
export type ProjectRootVerdict = { allowed: true } | { allowed: false; reason: string };
export const PROJECT_ROOT = 'projectRoot' as const;

export interface ToolCallContext {
  /** When the decision is made: a started call's deadline counts from it. */
  now: Date;
  projectRoot?: ProjectRootVerdict;
}

/** Everything a call id is bound to besides its tool, stage and arguments, as one digest. */
export function callBinding(request: ToolExecuteRequest): string {
  const { runId, projectRoot, userMode, reasoningEnabled, delegation } = request;
  return createHash('sha256').update(canonicalJson({ runId, projectRoot, userMode, reasoningEnabled, delegation })).digest('hex');
}

function refused(request: ToolExecuteRequest, code: ErrorCode, reason: string): ToolCallDecided[] {
  const { callId, tool, stage } = request;
  return [{ type: 'ToolExecutionRefused', data: { callId, tool, stage, code, reason, binding: callBinding(request) } }];
}

/**
 * The policy is decided here again from the request's own mode, reasoning switch, stage and
 * delegation: the caller's word is not trusted. Only then is the project root asked about.
 */
function start(request: ToolExecuteRequest, { now, projectRoot }: ToolCallContext): ToolCallDecided[] {
  const policy = decideStagePolicy(request);
  if (!policy.tools.includes(request.tool)) {
    const offered = policy.tools.length > 0 ? policy.tools.join(', ') : 'no tools';
    const reason = `${request.tool} is not available in the ${request.stage} stage (${request.userMode} mode offers ${offered})`;
    return refused(request, 'FORBIDDEN_TOOL', reason);
  }
  if (projectRoot === undefined) return needs(PROJECT_ROOT);
  if (!projectRoot.allowed) return refused(request, 'FORBIDDEN_PATH', projectRoot.reason);
  const { callId, tool, arguments: args, stage } = request;
  const deadline = new Date(now.getTime() + toolCallBudgetMs(tool, args)).toISOString();
  return [{ type: 'ToolExecutionStarted', data: { callId, tool, arguments: args, stage, binding: callBinding(request), deadline } }];
}

/** Only a started call finishes; the stream handler reads a call before it decides, so anything else is another writer's. */
function startedOf(state: ToolCallState): Started {
  if (state.status === 'started') return state.started;
  throw new StagecraftError('CONFLICT', `the call is ${state.status}, not running: only a started call can finish`);
}

export const toolCallDecider: Decider<ToolCallState, ToolCallInput, ToolCallDecided, ToolCallContext> = {
  initialState: () => ({ status: 'new' }),

  // Expected revisions make any other order impossible (a refusal or a start only on a new stream, a
  // finish only right after the start); an event that does not fit is left out of the state.
  evolve(state, event) {
    switch (event.type) {
      case 'ToolExecutionStarted':
        return state.status === 'new' ? { status: 'started', started: event.data } : state;
      case 'ToolExecutionFinished':
        return state.status === 'started' ? { status: 'finished', started: state.started, finished: event.data } : state;
      case 'ToolExecutionRefused':
        return state.status === 'new' ? { status: 'refused', refused: event.data } : state;
      default: {
        const unreachable: never = event;
        return unreachable;
      }
    }
  },

  decide(input, state, context) {
    switch (input.type) {
      case 'StartCall':
        assertSameCall(state, input.request);
        if (state.status !== 'new') throw new StagecraftError('CONFLICT', `call '${input.request.callId}' is already ${state.status}`);
        return start(input.request, context);
      case 'FinishCall': {
        const { callId, tool } = startedOf(state);
        const { ok, output, truncated, changes } = input.outcome;
        const data = { callId, tool, ok, output, truncated, durationMs: input.durationMs };
        // Only a write that happened changed files; an absent field keeps reads' records as they were.
        return [{ type: 'ToolExecutionFinished', data: ok && changes && changes.length > 0 ? { ...data, changes } : data }];
      }
      case 'InterruptCall': {
        const { callId, tool } = startedOf(state);
        const output = failed({
          kind: 'INTERRUPTED',
          problem: `the ${tool} call was interrupted: ${input.why}; whether it took effect is unknown`,
          retry: 'check what the call would have changed (read the files, or list the directory) before you make it again with a new call',
        }).output;
        return [
          { type: 'ToolExecutionFinished', data: { callId, tool, ok: false, output, truncated: false, durationMs: 0, interrupted: true } },
        ];
      }
      default: {
        const unreachable: never = input;
        return unreachable;
      }
    }
  },
};

/**
 * A call id names one call. Reusing it for a different tool, stage, arguments, run, project root,
 * mode or delegation is a caller bug (or an attempt) that would otherwise get the first call's result.
 */
export function assertSameCall(state: ToolCallState, request: ToolExecuteRequest): void {
  if (state.status === 'new') return;
  const recorded = state.status === 'refused' ? state.refused : state.started;
  // Sorted keys: the same arguments compare equal whatever order they were sent in.
  const sameArguments = state.status === 'refused' || canonicalJson(state.started.arguments) === canonicalJson(request.arguments);
  // Records written before calls were bound carry no binding: they compare on tool, stage and arguments alone.
  const sameBinding = recorded.binding === undefined || recorded.binding === callBinding(request);
  if (recorded.tool === request.tool && recorded.stage === request.stage && sameArguments && sameBinding) return;
  throw new StagecraftError(
    'CONFLICT',
    `call id '${request.callId}' was already used for a different call (${recorded.tool} in ${recorded.stage}); use a new call id`,
    [{ path: ['callId'], message: 'already used for a different tool, stage, arguments, run, project root, mode or delegation' }],
  );
}

/** The settled outcome of an earlier attempt: its recorded result, its refusal, or null while none is recorded. */
export function settledOutcome(state: ToolCallState): ToolResult | null {
  if (state.status === 'finished') return { ...state.finished, replayed: true };
  if (state.status === 'refused') throw new StagecraftError(state.refused.code, state.refused.reason);
  return null;
}

/** A refusal as the caller who was refused gets it. */
export const refusalOf = ({ code, reason }: Pick<Refused, 'code' | 'reason'>): StagecraftError =>
  new StagecraftError(code, reason, [{ path: ['tool'], message: reason }]);
