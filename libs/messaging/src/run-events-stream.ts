import { DeliverPolicy, JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { StagecraftError, publishContracts, withPrefix } from '@stagecraft/contracts';
import type { MessageBus } from './bus';
import { natsConnectionOf } from './nats-connection';
import { RunFeedEvent, firstSightings, readRunFeedMessage } from './publish';

/** How long run events are kept for a late subscriber unless told otherwise: a day. */
export const DEFAULT_RUN_EVENTS_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** In process, the runs whose events are kept at most (the oldest run is dropped first). */
const IN_PROCESS_MAX_RUNS = 100;

/** The JetStream stream that keeps the run feed of one subject prefix: `STAGECRAFT_RUN_EVENTS` for `stagecraft`. */
export const runEventsStreamName = (prefix: string): string =>
  `${(prefix || 'stagecraft').replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase()}_RUN_EVENTS`;

const feedSubject = (prefix: string, runId: string) => withPrefix(prefix, publishContracts['run.events'].subject(runId));
const allFeeds = (prefix: string) => withPrefix(prefix, 'run.*.events');

interface Kept {
  at: number;
  /** The messages as published: parsed only when a late subscriber reads them. */
  bodies: string[];
}
/** In process: what each bus keeps of the feed, by run. */
const inProcess = new WeakMap<MessageBus, { prefix: string; maxAgeMs: number; runs: Map<string, Kept> }>();

/**
 * Keeps the run feed (`<prefix>.run.*.events`) so a subscriber that comes late reads a run from its
 * start. On NATS a JetStream stream bounded by age takes every message the feed publishes (created
 * once; a replica that finds it leaves it as it is). In process, the bus keeps the latest runs in memory.
 */
export async function retainRunEvents(bus: MessageBus, prefix: string, maxAgeMs = DEFAULT_RUN_EVENTS_MAX_AGE_MS): Promise<void> {
  const nc = natsConnectionOf(bus);
  if (nc) return ensureStream(nc, prefix, maxAgeMs);
  if (inProcess.has(bus)) return;
  const kept = { prefix, maxAgeMs, runs: new Map<string, Kept>() };
  inProcess.set(bus, kept);
  bus.subscribe(allFeeds(prefix), (m) => {
    const runId = m.subject.slice(0, -'.events'.length).split('.').at(-1) ?? '';
    const now = Date.now();
    const run = kept.runs.get(runId) ?? { at: now, bodies: [] };
    run.bodies.push(m.body);
    kept.runs.set(runId, run);
    for (const [id, { at }] of kept.runs) {
      if (kept.runs.size <= IN_PROCESS_MAX_RUNS && now - at <= maxAgeMs) break;
      kept.runs.delete(id);
    }
  });
}

async function ensureStream(nc: NatsConnection, prefix: string, maxAgeMs: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const name = runEventsStreamName(prefix);
  try {
    await jsm.streams.info(name);
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
    // Two replicas may both get here: the server accepts the same configuration twice.
    await jsm.streams.add({ name, subjects: [allFeeds(prefix)], max_age: maxAgeMs * 1_000_000 });
  }
}

const ends = (event: RunFeedEvent) => event.type === 'RunCompleted' || event.type === 'RunFailed';

export interface FollowRunEventsOptions {
  /** Stop after the run's `RunCompleted` or `RunFailed` (default true); false: follow until the caller stops. */
  untilEnd?: boolean;
}

/**
 * One run's events from its start, then live, each event id once (the feed repeats events after a
 * restart of its publisher). Needs `retainRunEvents` on the same subject prefix: on NATS the stream
 * (the conversation service makes it), in process the bus's memory (the embedded host's conversation
 * service starts it); without either it fails with `UNAVAILABLE` rather than silently missing events.
 */
export function followRunEvents(
  bus: MessageBus,
  prefix: string,
  runId: string,
  options: FollowRunEventsOptions = {},
): AsyncIterable<RunFeedEvent> {
  const untilEnd = options.untilEnd ?? true;
  const source = natsConnectionOf(bus) ? fromStream(natsConnectionOf(bus)!, prefix, runId) : fromMemory(bus, prefix, runId);
  return {
    async *[Symbol.asyncIterator]() {
      const isNew = firstSightings();
      for await (const event of source) {
        if (!isNew(event)) continue;
        yield event;
        if (untilEnd && ends(event)) return;
      }
    },
  };
}

async function* fromStream(nc: NatsConnection, prefix: string, runId: string): AsyncGenerator<RunFeedEvent> {
  const stream = runEventsStreamName(prefix);
  let consumer;
  try {
    // An ordered consumer on one subject: a single filter, which nats-server 2.9 accepts.
    consumer = await jetstream(nc).consumers.get(stream, {
      filter_subjects: feedSubject(prefix, runId),
      deliver_policy: DeliverPolicy.All,
    });
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)
      throw new StagecraftError(
        'UNAVAILABLE',
        `run events are not retained: no stream ${stream} (the conversation service creates it)`,
        [],
        {
          cause: error,
        },
      );
    throw error;
  }
  const messages = await consumer.consume();
  try {
    for await (const m of messages) {
      const event = parse(m.string());
      if (event) yield event;
    }
  } finally {
    await messages.close();
  }
}

async function* fromMemory(bus: MessageBus, prefix: string, runId: string): AsyncGenerator<RunFeedEvent> {
  const kept = inProcess.get(bus);
  if (!kept || kept.prefix !== prefix)
    throw new StagecraftError('UNAVAILABLE', `run events are not retained on this bus for prefix "${prefix}"`);
  // Live first, then what was kept: nothing published in between is lost (repeats are dropped by id).
  const queue: RunFeedEvent[] = [];
  let wake: (() => void) | undefined;
  const live = bus.subscribe(feedSubject(prefix, runId), (m) => {
    const event = parse(m.body);
    if (!event) return;
    queue.push(event);
    wake?.();
  });
  try {
    for (const body of [...(kept.runs.get(runId)?.bodies ?? [])]) {
      const event = parse(body);
      if (event) yield event;
    }
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    live.unsubscribe();
  }
}

/** A kept or live message as a public event; anything else is skipped (a client takes nothing but the public feed). */
const parse = (body: string): RunFeedEvent | undefined => readRunFeedMessage(body) ?? undefined;
