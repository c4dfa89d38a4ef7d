import type { RecordedEvent as KurrentRecordedEvent } from '@kurrent/kurrentdb-client';
import { StagecraftError } from '@stagecraft/contracts';
import { ConcurrencyError } from '../errors';
import { chainBatch, chainContent } from '../chain/chain';
import { verifyStreamChain } from '../chain/verify-chain';
import { kurrentDbAddress, normalizeKurrentDbConnectionString } from './connection-string';
import {
  fromLogPosition,
  isSystemEvent,
  toActualRevision,
  toChainedEventData,
  toEventData,
  toReadPosition,
  toRecordedEvent,
  toStagecraftError,
  toStreamState,
} from './mapping';

const recorded = (overrides: Partial<KurrentRecordedEvent> = {}): KurrentRecordedEvent =>
  ({
    streamId: 'run-1',
    id: '9b1f3c6e-0000-4000-8000-000000000001',
    isJson: true,
    revision: 3n,
    type: 'RunStarted',
    created: new Date('2025-02-03T04:05:06.789Z'),
    data: { runId: 'r' },
    metadata: { correlationId: 'c' },
    position: { commit: 4242n, prepare: 4242n },
    ...overrides,
  }) as KurrentRecordedEvent;

describe('KurrentDB position and revision mapping', () => {
  it('maps our position to a commit/prepare pair and back', () => {
    expect(toReadPosition(4242n)).toEqual({ commit: 4242n, prepare: 4242n });
    expect(fromLogPosition({ commit: 4242n, prepare: 4242n })).toBe(4242n);
    expect(toReadPosition('start')).toBe('start');
    expect(toReadPosition(0n)).toBe('start');
  });

  it('passes expected revisions through as the client constants', () => {
    expect(toStreamState('no_stream')).toBe('no_stream');
    expect(toStreamState('any')).toBe('any');
    expect(toStreamState('stream_exists')).toBe('stream_exists');
    expect(toStreamState(7n)).toBe(7n);
  });

  it('reads deleted and tombstoned streams as absent', () => {
    expect(toActualRevision('no_stream')).toBe('no_stream');
    expect(toActualRevision(-5n)).toBe('no_stream');
    expect(toActualRevision(-6n)).toBe('no_stream');
    expect(toActualRevision(12n)).toBe(12n);
  });

  it('maps a recorded event, using the commit position and an ISO timestamp', () => {
    expect(toRecordedEvent(recorded())).toEqual({
      id: '9b1f3c6e-0000-4000-8000-000000000001',
      streamId: 'run-1',
      revision: 3n,
      position: 4242n,
      type: 'RunStarted',
      data: { runId: 'r' },
      metadata: { correlationId: 'c' },
      recordedAt: '2025-02-03T04:05:06.789Z',
    });
    expect(toRecordedEvent(recorded({ metadata: undefined })).metadata).toBeNull();
  });

  it('refuses an event without a log position instead of inventing one', () => {
    expect(() => toRecordedEvent(recorded({ position: undefined }))).toThrow(/22\.6 or later/);
  });

  it('sends metadata as exact JSON bytes, falsy values included', () => {
    const data = toEventData({ id: 'e1', type: 'T', data: undefined, metadata: 0 });
    expect(data).toMatchObject({ id: 'e1', type: 'T', contentType: 'application/json', data: null });
    expect(new TextDecoder().decode(data.metadata as Uint8Array)).toBe('0');
    expect((data.metadata as Uint8Array).constructor).toBe(Uint8Array);
  });

  it('sends chained metadata as the very text that was hashed, so a read back verifies', () => {
    const event = { id: 'e1', type: 'T', data: { a: 1 }, metadata: { b: 2, chain: { prev: 'old', hash: 'old' } } };
    const {
      metadata: [text],
    } = chainBatch('s-1', null, [chainContent(event)]);
    const sent = new TextDecoder().decode(toChainedEventData(event, text).metadata as Uint8Array);
    expect(sent).toBe(text);
    const read = {
      id: 'e1',
      streamId: 's-1',
      revision: 0n,
      position: 1n,
      type: 'T',
      data: { a: 1 },
      metadata: JSON.parse(sent),
      recordedAt: '',
    };
    expect(verifyStreamChain([read])).toMatchObject({ chained: 1, breaks: [] });
  });

  it('recognises system events by stream or type', () => {
    expect(isSystemEvent({ streamId: '$stats-127.0.0.1:2113', type: '$statsCollected' })).toBe(true);
    expect(isSystemEvent({ streamId: 'run-1', type: '$>' })).toBe(true);
    expect(isSystemEvent({ streamId: 'run-1', type: 'RunStarted' })).toBe(false);
  });
});

describe('KurrentDB error mapping', () => {
  it('turns a wrong expected version into a ConcurrencyError with the actual revision', () => {
    const error = toStagecraftError({ type: 'wrong-expected-version', message: 'wev', actualState: 4n }, 'run-1', 2n);
    expect(error).toBeInstanceOf(ConcurrencyError);
    expect(error).toMatchObject({ code: 'CONFLICT', stream: 'run-1', expected: 2n, actual: 4n });
  });

  it('codes unavailability and timeouts', () => {
    expect(toStagecraftError({ type: 'unavailable' }, 's')).toMatchObject({ code: 'UNAVAILABLE' });
    expect(toStagecraftError({ type: 'deadline-exceeded' }, 's')).toMatchObject({ code: 'TIMEOUT' });
    expect(toStagecraftError({ type: 'maximum-append-size-exceeded' }, 's')).toMatchObject({ code: 'VALIDATION' });
    expect(toStagecraftError(Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14 }), 's')).toMatchObject({
      code: 'UNAVAILABLE',
    });
    expect(toStagecraftError(Object.assign(new Error('4 DEADLINE_EXCEEDED'), { code: 4 }), 's')).toMatchObject({ code: 'TIMEOUT' });
  });

  it("names the server's hosts, never its credentials", () => {
    const address = kurrentDbAddress('kurrentdb://admin:changeit@db-1:2113,db-2:2113?tls=false');
    expect(address).toBe('db-1:2113,db-2:2113');
    const error = toStagecraftError(Object.assign(new Error('UnavailableError'), { type: 'unavailable' }), 's', 'any', address);
    expect(error.message).toBe('KurrentDB at db-1:2113,db-2:2113: unavailable: UnavailableError');
    expect(toStagecraftError({ type: 'deadline-exceeded' }, 's', 'any', address).message).toMatch(
      /^KurrentDB at db-1:2113,db-2:2113: timed out/,
    );
  });

  it('keeps unknown errors as they are', () => {
    const original = new Error('boom');
    expect(toStagecraftError(original, 's')).toBe(original);
    expect(toStagecraftError('text', 's')).toBeInstanceOf(StagecraftError);
  });
});

describe('KurrentDB connection strings', () => {
  it.each([
    ['kurrentdb://localhost:2113?tls=false', 'kurrentdb://localhost:2113?tls=false'],
    ['esdb://admin:changeit@db:2113?tls=false', 'kurrentdb://admin:changeit@db:2113?tls=false'],
    ['esdb+discover://a:2113,b:2113,c:2113', 'kurrentdb+discover://a:2113,b:2113,c:2113'],
    ['kdb://node', 'kdb://node'],
  ])('accepts %s', (input, normalized) => {
    expect(normalizeKurrentDbConnectionString(input)).toBe(normalized);
  });

  it.each(['http://localhost:2113', 'kurrentdb://', 'kurrentdb://host:port', 'localhost:2113', 'esdb://a b:2113'])(
    'rejects %s with VALIDATION',
    (input) => {
      expect(() => normalizeKurrentDbConnectionString(input)).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    },
  );
});
