import type { EventReader, EventSubscription, RecordedEvent } from '@stagecraft/event-store';

/** True when `next` is still pending after everything already queued has run. */
function nothingReady(next: Promise<unknown>): Promise<boolean> {
  return Promise.race([next.then(() => false), new Promise<boolean>((resolve) => setImmediate(() => resolve(true)))]);
}

/**
 * The reader a projection runner is given, and a promise that resolves the first time one of its
 * subscriptions has nothing ready: for the sqlite and memory stores the head of the log as it was,
 * for KurrentDB's pushed subscription its first lull. A view is answered from only once it has
 * caught up, unless the caller names the position it needs.
 */
export function watchFirstLull(reader: EventReader): { reader: EventReader; caughtUp: Promise<void> } {
  let lulled = false;
  let markCaughtUp!: () => void;
  const caughtUp = new Promise<void>((resolve) => (markCaughtUp = resolve));

  function watched(subscription: EventSubscription): EventSubscription {
    return {
      close: () => subscription.close(),
      [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
        const events = subscription[Symbol.asyncIterator]();
        return {
          next() {
            const next = events.next();
            if (!lulled) {
              void nothingReady(next).then((idle) => {
                if (!idle || lulled) return;
                lulled = true;
                markCaughtUp();
              });
            }
            return next;
          },
        };
      },
    };
  }

  return {
    caughtUp,
    reader: {
      readStream: (stream, options) => reader.readStream(stream, options),
      readAll: (options) => reader.readAll(options),
      subscribeToAll: (options) => watched(reader.subscribeToAll(options)),
    },
  };
}
