import { StagecraftError } from '@stagecraft/contracts';
import type { EventSubscription, RecordedEvent } from '../port';

/**
 * An `EventSubscription` over one generator of events: it may be iterated once (a second reader
 * would steal events from the first), and closing it runs `close` once.
 */
export function subscriptionHandle(events: () => AsyncGenerator<RecordedEvent>, close: () => Promise<void> | void): EventSubscription {
  let iterated = false;
  let closed = false;
  return {
    [Symbol.asyncIterator]() {
      if (iterated) throw new StagecraftError('INVARIANT_VIOLATION', 'a subscription can be iterated once');
      iterated = true;
      return events();
    },
    async close() {
      if (closed) return;
      closed = true;
      await close();
    },
  };
}
