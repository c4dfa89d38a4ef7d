import { ChangeSignal } from '../shared/change-signal';
import { RecentAppends } from '../shared/recent-appends';
import { assertExpectedRevision, validateAppend } from '../shared/expected-revision';
import { createPollingSubscription } from '../shared/polling-subscription';
import { streamWindow } from '../shared/read-window';
import { appendBytes, assertAppendFits } from '../shared/append-limit';
import { ConcurrencyError } from '../errors';
import { chainBatch, chainContent, chainedEvents } from '../chain/chain';
import { createMemoryCheckpointStore } from './memory-checkpoints';
import type { AppendResult, EventStore, EventSubscription, NewEvent, RecordedEvent } from '../port';

/** Events are kept as JSON text so readers get fresh copies, exactly as from a real engine. */
interface StoredEvent {
  id: string;
  streamId: string;
  revision: bigint;
  position: bigint;
  type: string;
  data: string;
  metadata: string;
  recordedAt: string;
}

interface StoredStream {
  events: StoredEvent[];
  revisionById: Map<string, number>;
  /** The chain hash of the last event. */
  lastHash: string | null;
}

export function createMemoryEventStore(): EventStore {
  const log: StoredEvent[] = [];
  const streams = new Map<string, StoredStream>();
  const changes = new ChangeSignal();
  const recent = new RecentAppends();
  const subscriptions = new Set<EventSubscription>();

  const toRecorded = (e: StoredEvent): RecordedEvent => ({
    id: e.id,
    streamId: e.streamId,
    revision: e.revision,
    position: e.position,
    type: e.type,
    data: JSON.parse(e.data),
    metadata: JSON.parse(e.metadata),
    recordedAt: e.recordedAt,
  });

  function retried(
    stream: string,
    existing: StoredStream,
    events: NewEvent[],
    expected: Parameters<typeof assertExpectedRevision>[1],
  ): AppendResult | null {
    const first = existing.revisionById.get(events[0].id);
    if (first === undefined) return null;
    const recorded = existing.events.slice(first, first + events.length);
    if (recorded.length !== events.length || recorded.some((e, i) => e.id !== events[i].id)) {
      const last = existing.events[existing.events.length - 1];
      throw new ConcurrencyError(stream, expected, last.revision, {
        reason: `event ${events[0].id} is already in the stream, but the retried batch differs`,
      });
    }
    const last = recorded[recorded.length - 1];
    return { nextExpectedRevision: last.revision, position: last.position };
  }

  const store: EventStore = {
    kind: 'memory',
    checkpoints: createMemoryCheckpointStore(),

    async appendToStream(stream, events, options) {
      const expected = options?.expectedRevision ?? 'any';
      validateAppend(stream, events, expected);
      const existing: StoredStream = streams.get(stream) ?? { events: [], revisionById: new Map(), lastHash: null };
      if (events.length > 0) {
        const original = retried(stream, existing, events, expected);
        if (original) return original;
      }
      const current = BigInt(existing.events.length) - 1n;
      assertExpectedRevision(stream, expected, current);
      if (events.some((e) => existing.revisionById.has(e.id))) {
        throw new ConcurrencyError(stream, expected, current < 0n ? 'no_stream' : current, {
          reason: 'an event id of this batch is already in the stream',
        });
      }
      if (events.length === 0) return { nextExpectedRevision: current, position: existing.events.at(-1)?.position ?? 0n };
      // Serialise first so a non-JSON payload fails the whole batch before anything is stored.
      const contents = events.map(chainContent);
      const chained = chainBatch(stream, existing.lastHash, contents);
      assertAppendFits(stream, appendBytes(contents.map((c, i) => ({ data: c.data, metadata: chained.metadata[i] }))));
      const recordedAt = new Date().toISOString();
      const stored = contents.map((c, i): StoredEvent => ({
        id: c.id,
        streamId: stream,
        revision: current + 1n + BigInt(i),
        position: BigInt(log.length + 1 + i),
        type: c.type,
        data: c.data,
        metadata: chained.metadata[i],
        recordedAt,
      }));
      for (const e of stored) {
        existing.revisionById.set(e.id, existing.events.length);
        existing.events.push(e);
        log.push(e);
      }
      existing.lastHash = chained.links[chained.links.length - 1].hash;
      streams.set(stream, existing);
      recent.add(stream, chainedEvents(events, chained.links), { position: stored[0].position, revision: stored[0].revision, recordedAt });
      changes.notify();
      const last = stored[stored.length - 1];
      return { nextExpectedRevision: last.revision, position: last.position };
    },

    async readStream(stream, options) {
      const events = streams.get(stream)?.events ?? [];
      const window = streamWindow(options, BigInt(events.length) - 1n);
      if (!window) return [];
      const slice = events.slice(Number(window.from), Number(window.to) + 1).map(toRecorded);
      return window.backwards ? slice.reverse() : slice;
    },

    async readAll(options) {
      const from = options?.fromPosition === undefined || options.fromPosition === 'start' ? 0 : Number(options.fromPosition);
      const count = options?.maxCount ?? log.length;
      // Positions are 1-based indexes into the log.
      if (!options?.types) return log.slice(from, from + count).map(toRecorded);
      const types = new Set(options.types);
      const found: RecordedEvent[] = [];
      for (let i = from; i < log.length && found.length < count; i += 1) if (types.has(log[i].type)) found.push(toRecorded(log[i]));
      return found;
    },

    async headPosition() {
      return log.at(-1)?.position ?? 0n;
    },

    subscribeToAll(options) {
      const subscription = createPollingSubscription(
        { readAll: store.readAll, changes, recent: (from, maxCount) => recent.after(from, maxCount) },
        options,
        () => subscriptions.delete(subscription),
      );
      subscriptions.add(subscription);
      return subscription;
    },

    async close() {
      await Promise.all([...subscriptions].map((s) => s.close()));
    },
  };
  return store;
}
