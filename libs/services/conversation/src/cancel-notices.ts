import { publishContracts, withPrefix } from '@stagecraft/contracts';
import type { BusSubscription, MessageBus } from '@stagecraft/messaging';

type Notice = 'run.cancelled' | 'tool.cancel';

const subjectOf = (prefix: string, notice: Notice) => withPrefix(prefix, publishContracts[notice].subject());

/** Never throws: a notice is a hint that makes a cancellation prompt; the log is what says it happened. */
function publishNotice(bus: MessageBus, prefix: string, notice: Notice, message: unknown): void {
  const subject = subjectOf(prefix, notice);
  try {
    bus.publish(subject, JSON.stringify(publishContracts[notice].message.parse(message)));
  } catch (error) {
    bus.reportFault({ during: 'publish', subject, error });
  }
}

/** Tells every conversation replica that `RunCancelled` was appended: the one driving the run stops it. */
export const publishRunCancelled = (bus: MessageBus, prefix: string, runId: string): void =>
  publishNotice(bus, prefix, 'run.cancelled', { runId });

/** Asks whichever tool service runs the call to kill it; the call's reply then says it was interrupted. */
export const publishToolCancel = (bus: MessageBus, prefix: string, callId: string, reason: string): void =>
  publishNotice(bus, prefix, 'tool.cancel', { callId, reason: reason.slice(0, 500) });

/** Follows the cancellation notices; a message that is not one is dropped (anyone on the bus may be hostile). */
export function subscribeRunCancelled(bus: MessageBus, prefix: string, onRun: (runId: string) => void): BusSubscription {
  return bus.subscribe(subjectOf(prefix, 'run.cancelled'), (m) => {
    let body: unknown;
    try {
      body = JSON.parse(m.body);
    } catch {
      return;
    }
    const parsed = publishContracts['run.cancelled'].message.safeParse(body);
    if (parsed.success) onRun(parsed.data.runId);
  });
}
