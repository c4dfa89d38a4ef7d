import { FeedEvent, RunEvent, ToolProgress, publishContracts, toFeedEvent, withPrefix } from '@stagecraft/contracts';
import { z } from 'zod';
import { BusSubscription, MessageBus } from './bus';
import { PayloadTooLargeError } from './errors';
import { shrinkToFit } from './shrink';

/**
 * Publishes one contract message; never throws. A message over the bus's `maxPayload` goes out with its
 * largest strings cut (still valid against its schema), so live subscribers see every message, in order.
 */
function publishWithin(bus: MessageBus, subject: () => string, message: unknown, schema: z.ZodType, note: string): void {
  let name = '';
  try {
    name = subject();
    const body = shrinkToFit(message, schema, bus.maxPayload, note);
    if (body === null) throw new PayloadTooLargeError(name, 'message', Buffer.byteLength(JSON.stringify(message), 'utf8'), bus.maxPayload);
    bus.publish(name, body);
  } catch (error) {
    bus.reportFault({ during: 'publish', subject: name, error });
  }
}

/** A stored run event (or a notice of one) to publish: its id and log position (a decimal string) come along when it was read from the log. */
export type StoredRunEvent = RunEvent & { id?: string; position?: string };

/** What a subscriber of the run feed gets: the public event (feed/v1), never the stored one. */
export type RunFeedEvent = FeedEvent;

/**
 * Live run events for clients: `run.<runId>.events`, one public event per stored event (cut to fit; the
 * store keeps it whole). The stored event goes through `toFeedEvent` here, so nothing else reaches the feed.
 */
export function publishRunEvent(bus: MessageBus, prefix: string, event: StoredRunEvent): void {
  let published: FeedEvent | null = null;
  try {
    published = toFeedEvent(event);
  } catch (error) {
    // Never throws, as before: the log's follower must not stop on one event it cannot map.
    bus.reportFault({ during: 'publish', subject: withPrefix(prefix, 'run.*.events'), error });
  }
  if (!published) return;
  const { subject, message } = publishContracts['run.events'];
  const runId = published.metadata.runId;
  publishWithin(bus, () => withPrefix(prefix, subject(runId)), published, message, 'the full event is in the store');
}

/**
 * One message of the run feed as a client takes it: a public event that passes its schema, or null. A
 * message without a `version` was published by a build from before the public feed (during an upgrade,
 * or kept in the JetStream feed since): it is the stored event, mapped here as the publisher now maps it.
 */
export function readRunFeedMessage(body: string): RunFeedEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const parsed = publishContracts['run.events'].message.safeParse('version' in value ? value : fromEarlierBuild(value));
  return parsed.success ? (parsed.data as RunFeedEvent) : null;
}

/** An earlier build's message, the stored event itself: mapped if it has the stored shape (it may not: it is input like any other). */
function fromEarlierBuild(value: object): FeedEvent | null {
  try {
    return toFeedEvent(value as StoredRunEvent);
  } catch {
    return null;
  }
}

/**
 * A filter that passes each event id once. The feed is published from the log by a checkpointed
 * processor, so after a restart it repeats what came after its last checkpoint; a message without an
 * id (a notice that never reached the store) always passes.
 */
export function firstSightings(): (event: { id?: string }) => boolean {
  const seen = new Set<string>();
  return ({ id }) => {
    if (id === undefined) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  };
}

/** Follows one run's live feed; repeats of an event already delivered, and messages that are no public event, are dropped. */
export function subscribeRunEvents(
  bus: MessageBus,
  prefix: string,
  runId: string,
  listener: (event: RunFeedEvent) => void,
): BusSubscription {
  const isNew = firstSightings();
  return bus.subscribe(withPrefix(prefix, publishContracts['run.events'].subject(runId)), (m) => {
    const event = readRunFeedMessage(m.body);
    if (!event)
      bus.reportFault({ during: 'deliver', subject: m.subject, error: new Error('not an event of the public run feed (feed/v1)') });
    else if (isNew(event)) listener(event);
  });
}

export function publishToolProgress(bus: MessageBus, prefix: string, progress: ToolProgress): void {
  const { subject, message } = publishContracts['tool.progress'];
  publishWithin(bus, () => withPrefix(prefix, subject(progress.callId)), progress, message, 'the tool call result is in the store');
}

export function subscribeToolProgress(
  bus: MessageBus,
  prefix: string,
  callId: string,
  listener: (p: ToolProgress) => void,
): BusSubscription {
  return bus.subscribe(withPrefix(prefix, publishContracts['tool.progress'].subject(callId)), (m) => listener(JSON.parse(m.body)));
}
