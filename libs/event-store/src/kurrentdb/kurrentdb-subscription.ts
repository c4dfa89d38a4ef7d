import type { AllStreamSubscription } from '@kurrent/kurrentdb-client';
import { isSystemEvent, toRecordedEvent, toStagecraftError } from './mapping';
import type { EventSubscription, Position, RecordedEvent, SubscribeToAllOptions } from '../port';
import { subscriptionHandle } from '../shared/subscription-handle';

/** Wraps the server's catch-up subscription; drops system events and anything at or before the start position. */
export function wrapSubscription(
  subscription: AllStreamSubscription,
  options: SubscribeToAllOptions,
  onClose: () => void,
  /** The server's hosts, named in errors. */
  address?: string,
): EventSubscription {
  let closed = false;
  const after: Position = options.fromPosition === 'start' ? 0n : options.fromPosition;

  async function* events(): AsyncGenerator<RecordedEvent> {
    try {
      for await (const resolved of subscription) {
        const event = resolved.event;
        if (!event || isSystemEvent(event)) continue;
        const recorded = toRecordedEvent(event);
        if (recorded.position <= after) continue;
        if (!options.filter || options.filter(recorded)) yield recorded;
      }
    } catch (error) {
      // Unsubscribing cancels the underlying call; that is the normal end of a closed subscription.
      if (!closed) throw toStagecraftError(error, '$all', 'any', address);
    }
  }

  return subscriptionHandle(events, async () => {
    closed = true;
    onClose();
    await subscription.unsubscribe();
  });
}
