import { RunEvent, ToolProgress, publishContracts, withPrefix } from '@stagecraft/contracts';
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

/** A run event as the live feed carries it: the stored event's id and log position (a decimal string) come along when it was read from the log. */
export type RunFeedEvent = RunEvent & { id?: string; position?: string };

/** Live run events for UIs: `run.<runId>.events`, one message per stored event (cut to fit; the store keeps it whole). */
export function publishRunEvent(bus: MessageBus, prefix: string, event: RunFeedEvent): void {
  const runId = event.metadata.runId;
  if (!runId) return;
  const { subject, message } = publishContracts['run.events'];
  publishWithin(bus, () => withPrefix(prefix, subject(runId)), event, message, 'the full event is in the store');
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

/** Follows one run's live feed; repeats of an event already delivered are dropped. */
export function subscribeRunEvents(
  bus: MessageBus,
  prefix: string,
  runId: string,
  listener: (event: RunFeedEvent) => void,
): BusSubscription {
  const isNew = firstSightings();
  return bus.subscribe(withPrefix(prefix, publishContracts['run.events'].subject(runId)), (m) => {
    const event = JSON.parse(m.body) as RunFeedEvent;
    if (isNew(event)) listener(event);
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
