import type { KurrentDBClient, ReadAllOptions as KurrentReadAllOptions, ResolvedEvent } from '@kurrent/kurrentdb-client';
import { validateAppend } from '../shared/expected-revision';
import { loadKurrentClient } from './client-module';
import { kurrentDbAddress, normalizeKurrentDbConnectionString } from './connection-string';
import { createKurrentDbCheckpointStore } from './kurrentdb-checkpoints';
import { wrapSubscription } from './kurrentdb-subscription';
import { fromLogPosition, isSystemEvent, toEventData, toReadPosition, toRecordedEvent, toStagecraftError, toStreamState } from './mapping';
import type { EventStore, EventSubscription, Position, RecordedEvent } from '../port';

export interface KurrentDbEventStoreOptions {
  /** `kurrentdb://host:2113?tls=false`, `esdb://…` or any `+discover` variant. */
  connectionString: string;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A pattern that matches these event types and nothing else (none, for an empty list). */
const exactly = (types: readonly string[]) => (types.length === 0 ? '(?!)' : `^(?:${types.map(escapeRegex).join('|')})$`);

export function createKurrentDbEventStore(options: KurrentDbEventStoreOptions): EventStore {
  const kurrent = loadKurrentClient();
  const client = kurrent.KurrentDBClient.connectionString(normalizeKurrentDbConnectionString(options.connectionString));
  const subscriptions = new Set<EventSubscription>();
  const address = kurrentDbAddress(options.connectionString);

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
      try {
        const result = await client.appendToStream(stream, events.map(toEventData), { streamState: toStreamState(expected) });
        // An acknowledged retry may come back without a position; the log still has the original one.
        const position = result.position ? fromLogPosition(result.position) : await positionOf(stream, result.nextExpectedRevision);
        return { nextExpectedRevision: result.nextExpectedRevision, position };
      } catch (error) {
        throw toStagecraftError(error, stream, expected, address);
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
