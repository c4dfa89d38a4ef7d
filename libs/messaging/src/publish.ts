import { StagecraftEvent, ToolProgress, publishContracts, withPrefix } from '@stagecraft/contracts';
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

/** Live run events for UIs: `run.<runId>.events`, one message per stored event (cut to fit; the store keeps it whole). */
export function publishRunEvent(bus: MessageBus, prefix: string, event: StagecraftEvent & { position?: string }): void {
  const runId = event.metadata.runId;
  if (!runId) return;
  const { subject, message } = publishContracts['run.events'];
  publishWithin(bus, () => withPrefix(prefix, subject(runId)), event, message, 'the full event is in the store');
}

export function subscribeRunEvents(bus: MessageBus, prefix: string, runId: string, listener: (event: StagecraftEvent) => void): BusSubscription {
  return bus.subscribe(withPrefix(prefix, publishContracts['run.events'].subject(runId)), (m) => listener(JSON.parse(m.body)));
}

export function publishToolProgress(bus: MessageBus, prefix: string, progress: ToolProgress): void {
  const { subject, message } = publishContracts['tool.progress'];
  publishWithin(bus, () => withPrefix(prefix, subject(progress.callId)), progress, message, 'the tool call result is in the store');
}

export function subscribeToolProgress(bus: MessageBus, prefix: string, callId: string, listener: (p: ToolProgress) => void): BusSubscription {
  return bus.subscribe(withPrefix(prefix, publishContracts['tool.progress'].subject(callId)), (m) => listener(JSON.parse(m.body)));
}
