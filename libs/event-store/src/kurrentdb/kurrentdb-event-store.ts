import type { KurrentDBClient, ReadAllOptions as KurrentReadAllOptions, ResolvedEvent } from '@kurrent/kurrentdb-client';
import { validateAppend } from '../shared/expected-revision';
import { loadKurrentClient } from './client-module';
import { kurrentDbAddress, normalizeKurrentDbConnectionString } from './connection-string';
import { createKurrentDbCheckpointStore } from './kurrentdb-checkpoints';
import { wrapSubscription } from './kurrentdb-subscription';
import {
  fromLogPosition,
  isSystemEvent,
  toChainedEventData,
  toEventData,
  toReadPosition,
  toRecordedEvent,
  toStagecraftError,
  toStreamState,
} from './mapping';
import { chainBatch, chainContent, chainOf } from '../chain/chain';
import { ConcurrencyError } from '../errors';
import type { EventStore, EventSubscription, ExpectedRevision, NewEvent, Position, RecordedEvent } from '../port';

export interface KurrentDbEventStoreOptions {
  /** `kurrentdb://host:2113?tls=false`, `esdb://…` or any `+discover` variant. */
  connectionString: string;
}

/** Chaining turns `any` into an exact revision; a busy stream gets this many tries before the conflict is the caller's. */
const MAX_CHAIN_ATTEMPTS = 10;
/** How far back a retried `any` or `stream_exists` batch is recognised (docs/decisions/0037). */
const RETRY_LOOKBACK = 50;

/** A stream's last revision and chain hash, and the ids of its last events (or of the batch this process appended last). */
interface ChainHead {
  revision: bigint;
  hash: string | null;
  ids: ReadonlySet<string>;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A pattern that matches these event types and nothing else (none, for an empty list). */
const exactly = (types: readonly string[]) => (types.length === 0 ? '(?!)' : `^(?:${types.map(escapeRegex).join('|')})$`);

export function createKurrentDbEventStore(options: KurrentDbEventStoreOptions): EventStore {
  const kurrent = loadKurrentClient();
  const client = kurrent.KurrentDBClient.connectionString(normalizeKurrentDbConnectionString(options.connectionString));
  const subscriptions = new Set<EventSubscription>();
  const address = kurrentDbAddress(options.connectionString);
  /** Each stream's last revision and chain hash as this process appended them; dropped on any failed append. */
  const heads = new Map<string, ChainHead>();

  const readStream = async (stream: string, readOptions: Parameters<KurrentDBClient['readStream']>[1]): Promise<RecordedEvent[]> => {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of client.readStream(stream, readOptions)) if (resolved.event) events.push(toRecordedEvent(resolved.event));
    } catch (error) {
      if (error instanceof kurrent.StreamNotFoundError) return [];
      throw toStagecraftError(error, stream, 'any', address);
    }
    return events;
  };

  const store: EventStore = {
    kind: 'kurrentdb',
    checkpoints: createKurrentDbCheckpointStore(client, readStream, address),

    async appendToStream(stream, events, appendOptions) {
      const expected = appendOptions?.expectedRevision ?? 'any';
      validateAppend(stream, events, expected);
      const contents = events.map(chainContent);
      for (let attempt = 1; ; attempt += 1) {
        const { state, prev, converted, retry } = await chainTarget(stream, expected, events[0].id);
        if (retry) return retryAsSent(stream, events, expected);
        const chained = chainBatch(stream, prev?.hash ?? null, contents);
        try {
          const data = events.map((e, i) => toChainedEventData(e, chained.metadata[i]));
          const result = await client.appendToStream(stream, data, { streamState: state });
          if (prev && result.nextExpectedRevision === prev.revision + BigInt(events.length))
            heads.set(stream, {
              revision: result.nextExpectedRevision,
              hash: chained.links[chained.links.length - 1].hash,
              ids: new Set(events.map((e) => e.id)),
            });
          // An acknowledged retry may come back without a position; the log still has the original one.
          const position = result.position ? fromLogPosition(result.position) : await positionOf(stream, result.nextExpectedRevision);
          return { nextExpectedRevision: result.nextExpectedRevision, position };
        } catch (error) {
          heads.delete(stream);
          const mapped = toStagecraftError(error, stream, expected, address);
          if (!(mapped instanceof ConcurrencyError) || !converted || attempt >= MAX_CHAIN_ATTEMPTS) throw mapped;
          // Our exact revision lost, the caller's looser one may still hold: a retry of a stored batch
          // goes to the server as the caller sent it (it answers with the original result), anything else is chained again.
          if (await holdsId(stream, events[0].id)) return retryAsSent(stream, events, expected);
        }
      }
    },

    async readStream(stream, readOptions) {
      if (readOptions?.maxCount === 0) return [];
      const backwards = readOptions?.direction === 'backwards';
      return readStream(stream, {
        direction: backwards ? kurrent.BACKWARDS : kurrent.FORWARDS,
        fromRevision: readOptions?.fromRevision ?? (backwards ? kurrent.END : kurrent.START),
        maxCount: readOptions?.maxCount ?? Number.MAX_SAFE_INTEGER,
      });
    },

    async readAll(readOptions) {
      const after: Position =
        readOptions?.fromPosition === undefined || readOptions.fromPosition === 'start' ? 0n : readOptions.fromPosition;
      const wanted = readOptions?.maxCount ?? Number.MAX_SAFE_INTEGER;
      if (wanted <= 0) return [];
      // The server starts at the given position inclusively; ask for one more and drop it.
      const request: KurrentReadAllOptions = {
        fromPosition: toReadPosition(after),
        maxCount: after > 0n ? Math.min(wanted + 1, Number.MAX_SAFE_INTEGER) : wanted,
        direction: kurrent.FORWARDS,
        // The server filters by type; an exact-match pattern also keeps its system events (`$…`) out.
        filter: readOptions?.types ? kurrent.eventTypeFilter({ regex: exactly(readOptions.types) }) : kurrent.excludeSystemEvents(),
      };
      const events: RecordedEvent[] = [];
      try {
        for await (const resolved of client.readAll(request)) {
          const recorded = userEvent(resolved);
          if (recorded && recorded.position > after && events.length < wanted) events.push(recorded);
        }
      } catch (error) {
        throw toStagecraftError(error, '$all', 'any', address);
      }
      return events;
    },

    subscribeToAll(subscribeOptions) {
      const subscription = wrapSubscription(
        client.subscribeToAll({ fromPosition: toReadPosition(subscribeOptions.fromPosition), filter: kurrent.excludeSystemEvents() }),
        subscribeOptions,
        () => subscriptions.delete(subscription),
        address,
      );
      subscriptions.add(subscription);
      return subscription;
    },

    async close() {
      await Promise.all([...subscriptions].map((s) => s.close()));
      await client.dispose();
    },
  };

  /**
   * Where a batch is chained onto: the stream's head for `any` and `stream_exists` (sent as that exact
   * revision, `converted`, so a concurrent writer cannot slip in between), the event at the caller's
   * exact revision, or the stream's start for `no_stream`.
   */
  async function chainTarget(
    stream: string,
    expected: ExpectedRevision,
    firstId: string,
  ): Promise<{ state: ExpectedRevision; prev: ChainHead | null; converted: boolean; retry?: boolean }> {
    const none: ChainHead = { revision: -1n, hash: null, ids: new Set() };
    if (expected === 'no_stream') return { state: expected, prev: none, converted: false };
    const cached = heads.get(stream);
    if (typeof expected === 'bigint') {
      if (cached?.revision === expected) return { state: expected, prev: cached, converted: false };
      const [event] = await store.readStream(stream, { fromRevision: expected, maxCount: 1 });
      return { state: expected, prev: { ...none, revision: expected, hash: chainOf(event?.metadata)?.hash ?? null }, converted: false };
    }
    // An exact revision at the head would store a retried batch again: the server only recognises a
    // retry sent as before, so a batch whose first id is among the last events goes as the caller sent it.
    const head = cached ?? (await readHead(stream));
    if (head.ids.has(firstId)) return { state: expected, prev: null, converted: false, retry: true };
    if (head.revision < 0n) return { state: expected === 'any' ? 'no_stream' : expected, prev: head, converted: expected === 'any' };
    return { state: head.revision, prev: head, converted: true };
  }

  async function readHead(stream: string): Promise<ChainHead> {
    const recent = await store.readStream(stream, { direction: 'backwards', maxCount: RETRY_LOOKBACK });
    const last = recent[0];
    const ids = new Set(recent.map((e) => e.id));
    return last ? { revision: last.revision, hash: chainOf(last.metadata)?.hash ?? null, ids } : { revision: -1n, hash: null, ids };
  }

  async function holdsId(stream: string, id: string): Promise<boolean> {
    return (await readHead(stream)).ids.has(id);
  }

  async function retryAsSent(stream: string, events: NewEvent[], expected: ExpectedRevision) {
    try {
      const result = await client.appendToStream(stream, events.map(toEventData), { streamState: toStreamState(expected) });
      const position = result.position ? fromLogPosition(result.position) : await positionOf(stream, result.nextExpectedRevision);
      return { nextExpectedRevision: result.nextExpectedRevision, position };
    } catch (error) {
      throw toStagecraftError(error, stream, expected, address);
    }
  }

  async function positionOf(stream: string, revision: bigint): Promise<Position> {
    const [event] = await store.readStream(stream, { fromRevision: revision, maxCount: 1 });
    return event?.position ?? 0n;
  }

  return store;
}

function userEvent(resolved: ResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  return event && !isSystemEvent(event) ? toRecordedEvent(event) : null;
}
