import { StagecraftError } from '@stagecraft/contracts';
import type {
  AppendStreamState,
  CurrentStreamState,
  JSONEventData,
  ReadPosition,
  Position as LogPosition,
  RecordedEvent as KurrentRecordedEvent,
} from '@kurrent/kurrentdb-client';
import { ConcurrencyError, type ActualRevision } from '../errors';
import type { ExpectedRevision, NewEvent, Position, RecordedEvent } from '../port';

/*
 * Our Position is KurrentDB's commit position. Events appended outside explicit transactions
 * (the only kind the gRPC API writes) have commit == prepare, so the pair is recoverable from one number.
 */
export function toLogPosition(position: Position): LogPosition {
  return { commit: position, prepare: position };
}

export function toReadPosition(from: Position | 'start'): ReadPosition {
  return from === 'start' || from <= 0n ? 'start' : toLogPosition(from);
}

export function fromLogPosition(position: LogPosition): Position {
  return position.commit;
}

export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  if (typeof expected === 'bigint') return expected;
  switch (expected) {
    case 'any':
    case 'no_stream':
    case 'stream_exists':
      return expected;
    default: {
      const unknown: never = expected;
      throw new StagecraftError('VALIDATION', `unknown expected revision ${String(unknown)}`);
    }
  }
}

/** Deleted (-5) and tombstoned (-6) streams count as absent. */
export function toActualRevision(current: CurrentStreamState): ActualRevision {
  return current === 'no_stream' || current < 0n ? 'no_stream' : current;
}

const utf8 = new TextEncoder();

/** Metadata goes as raw JSON bytes: the client would silently drop falsy metadata such as `0` or `false`. */
export function toEventData(event: NewEvent): JSONEventData {
  return {
    id: event.id,
    contentType: 'application/json',
    type: event.type,
    data: (event.data ?? null) as JSONEventData['data'],
    metadata: utf8.encode(JSON.stringify(event.metadata ?? null)),
  };
}

/** An event with its chained metadata, sent as the exact text that was hashed (docs/decisions/0037). */
export function toChainedEventData(event: NewEvent, metadataText: string): JSONEventData {
  return { ...toEventData(event), metadata: utf8.encode(metadataText) };
}

export function isSystemEvent(event: { streamId: string; type: string }): boolean {
  return event.streamId.startsWith('$') || event.type.startsWith('$');
}

export function toRecordedEvent(event: KurrentRecordedEvent): RecordedEvent {
  if (!event.position) {
    throw new StagecraftError(
      'UNAVAILABLE',
      `KurrentDB returned event ${event.id} without a log position; KurrentDB/EventStoreDB 22.6 or later is required`,
    );
  }
  return {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    position: fromLogPosition(event.position),
    type: event.type,
    data: event.data ?? null,
    metadata: event.metadata ?? null,
    recordedAt: event.created.toISOString(),
  };
}

/**
 * The client's errors carry a `type` string; map them once, here, to coded errors. `address` (the
 * server's hosts) goes into the messages that send someone to look at the server.
 */
export function toStagecraftError(error: unknown, stream: string, expected: ExpectedRevision = 'any', address?: string): Error {
  const type = typeof error === 'object' && error !== null && 'type' in error ? String(error.type) : grpcStatusType(error);
  const message = error instanceof Error ? error.message : String(error);
  const server = address ? `KurrentDB at ${address}:` : 'KurrentDB';
  switch (type) {
    case 'wrong-expected-version': {
      const actual = (error as { actualState?: CurrentStreamState }).actualState ?? 'no_stream';
      return new ConcurrencyError(stream, expected, toActualRevision(actual), { cause: error });
    }
    case 'unavailable':
    case 'not-leader':
      return new StagecraftError('UNAVAILABLE', `${server} unavailable: ${message}`, [], { cause: error });
    case 'deadline-exceeded':
    case 'timeout':
      return new StagecraftError('TIMEOUT', `${server} timed out: ${message}`, [], { cause: error });
    case 'maximum-append-size-exceeded':
    case 'append-record-size-exceeded':
    case 'transaction-max-size-exceeded':
      return new StagecraftError('VALIDATION', `append to '${stream}' too large for KurrentDB: ${message}`, [], { cause: error });
    default:
      return error instanceof Error ? error : new StagecraftError('INTERNAL', message, [], { cause: error });
  }
}

/** Errors straight from the gRPC channel (before the client wraps them) carry only a status code. */
function grpcStatusType(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  if (code === 14) return 'unavailable';
  if (code === 4) return 'deadline-exceeded';
  return undefined;
}
