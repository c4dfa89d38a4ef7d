import { createHash } from 'node:crypto';
import { EventData, EventOf, StagecraftEvent, StagecraftError, ToolExecuteRequest, ToolResult } from '@stagecraft/contracts';

type ToolCallEvent = EventOf<'ToolCallRequested' | 'ToolCallCompleted' | 'ToolCallRejected'>;

/** What a `toolcall-<callId>` stream says about one call. */
export interface ToolCallRecord {
  requested: EventData<'ToolCallRequested'> | null;
  completed: EventData<'ToolCallCompleted'> | null;
  rejected: EventData<'ToolCallRejected'> | null;
}

export const EMPTY_RECORD: ToolCallRecord = { requested: null, completed: null, rejected: null };

const isToolCallEvent = (event: StagecraftEvent): event is ToolCallEvent =>
  event.type === 'ToolCallRequested' || event.type === 'ToolCallCompleted' || event.type === 'ToolCallRejected';

export function evolveToolCall(record: ToolCallRecord, event: ToolCallEvent): ToolCallRecord {
  switch (event.type) {
    case 'ToolCallRequested':
      return { ...record, requested: event.data };
    case 'ToolCallCompleted':
      return { ...record, completed: event.data };
    case 'ToolCallRejected':
      return { ...record, rejected: event.data };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

export const foldToolCall = (events: readonly StagecraftEvent[]): ToolCallRecord => events.filter(isToolCallEvent).reduce(evolveToolCall, EMPTY_RECORD);

/** JSON with sorted keys, so the same arguments compare equal whatever order they were sent in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Everything a call id is bound to besides its tool, stage and arguments, as one digest. */
export function callBinding(request: ToolExecuteRequest): string {
  const { runId, projectRoot, userMode, reasoningEnabled, delegation } = request;
  return createHash('sha256').update(canonical({ runId, projectRoot, userMode, reasoningEnabled, delegation })).digest('hex');
}

/**
 * A call id names one call. Reusing it for a different tool, stage, arguments, run, project root,
 * mode or delegation is a caller bug (or an attempt) that would otherwise get the first call's result.
 */
export function assertSameCall(record: ToolCallRecord, request: ToolExecuteRequest): void {
  const recorded = record.requested ?? record.rejected;
  if (!recorded) return;
  const sameArguments = record.requested === null || canonical(record.requested.arguments) === canonical(request.arguments);
  // Records written before calls were bound carry no binding: they compare on tool, stage and arguments alone.
  const sameBinding = recorded.binding === undefined || recorded.binding === callBinding(request);
  if (recorded.tool === request.tool && recorded.stage === request.stage && sameArguments && sameBinding) return;
  throw new StagecraftError('CONFLICT', `call id '${request.callId}' was already used for a different call (${recorded.tool} in ${recorded.stage}); use a new call id`, [
    { path: ['callId'], message: 'already used for a different tool, stage, arguments, run, project root, mode or delegation' },
  ]);
}

/** The settled outcome of an earlier attempt: its recorded result, its refusal, or null while none is recorded. */
export function settledOutcome(record: ToolCallRecord): ToolResult | null {
  if (record.completed) return { ...record.completed, replayed: true };
  if (record.rejected) throw new StagecraftError(record.rejected.code, record.rejected.reason);
  return null;
}
