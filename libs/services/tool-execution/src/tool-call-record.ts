import { createHash } from 'node:crypto';
import { EventData, StagecraftError, ToolCallEvent, ToolExecuteRequest, ToolResult, canonicalJson } from '@stagecraft/contracts';

/** What a `toolcall-<callId>` stream says about one call. */
export interface ToolCallRecord {
  started: EventData<'ToolExecutionStarted'> | null;
  finished: EventData<'ToolExecutionFinished'> | null;
  refused: EventData<'ToolExecutionRefused'> | null;
}

export const EMPTY_RECORD: ToolCallRecord = { started: null, finished: null, refused: null };

export function evolveToolCall(record: ToolCallRecord, event: ToolCallEvent): ToolCallRecord {
  switch (event.type) {
    case 'ToolExecutionStarted':
      return { ...record, started: event.data };
    case 'ToolExecutionFinished':
      return { ...record, finished: event.data };
    case 'ToolExecutionRefused':
      return { ...record, refused: event.data };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

export const foldToolCall = (events: readonly ToolCallEvent[]): ToolCallRecord => events.reduce(evolveToolCall, EMPTY_RECORD);

/** Everything a call id is bound to besides its tool, stage and arguments, as one digest. */
export function callBinding(request: ToolExecuteRequest): string {
  const { runId, projectRoot, userMode, reasoningEnabled, delegation } = request;
  return createHash('sha256').update(canonicalJson({ runId, projectRoot, userMode, reasoningEnabled, delegation })).digest('hex');
}

/**
 * A call id names one call. Reusing it for a different tool, stage, arguments, run, project root,
 * mode or delegation is a caller bug (or an attempt) that would otherwise get the first call's result.
 */
export function assertSameCall(record: ToolCallRecord, request: ToolExecuteRequest): void {
  const recorded = record.started ?? record.refused;
  if (!recorded) return;
  // Sorted keys: the same arguments compare equal whatever order they were sent in.
  const sameArguments = record.started === null || canonicalJson(record.started.arguments) === canonicalJson(request.arguments);
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
export function settledOutcome(record: ToolCallRecord): ToolResult | null {
  if (record.finished) return { ...record.finished, replayed: true };
  if (record.refused) throw new StagecraftError(record.refused.code, record.refused.reason);
  return null;
}
