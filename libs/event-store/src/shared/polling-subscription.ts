import type { ChangeSignal } from './change-signal';
import type { EventSubscription, Position, ReadAllOptions, RecordedEvent, SubscribeToAllOptions } from '../port';
import { subscriptionHandle } from './subscription-handle';

export interface PollingSource {
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  changes: ChangeSignal;
  /** Re-reads this often even without a local change: how appends by other processes are seen. */
  pollMs?: number;
  pageSize?: number;
  /** Reads served from what this process just appended, when they can be (`null`: read as usual). */
  recent?: (from: Position | 'start', maxCount: number) => RecordedEvent[] | null;
}

/**
 * Catch-up and live are the same loop: read pages after the last seen position until a page comes
 * back short, then wait for a change. Positions grow in commit order, so nothing is skipped or repeated.
 */
export function createPollingSubscription(
  source: PollingSource,
  options: SubscribeToAllOptions,
  onClose: () => void = () => undefined,
): EventSubscription {
  const pageSize = source.pageSize ?? 500;
  let closed = false;
  let signalClosed!: () => void;
  const closing = new Promise<void>((resolve) => (signalClosed = resolve));

  async function* events(): AsyncGenerator<RecordedEvent> {
    let after: Position | 'start' = options.fromPosition;
    while (!closed) {
      const seen = source.changes.version;
      const page = source.recent?.(after, pageSize) ?? (await source.readAll({ fromPosition: after, maxCount: pageSize }));
      for (const event of page) {
        if (closed) return;
        after = event.position;
        if (!options.filter || options.filter(event)) yield event;
      }
      if (page.length < pageSize && !closed) await source.changes.waitBeyond(seen, source.pollMs, closing);
    }
  }

  return subscriptionHandle(events, () => {
    closed = true;
    signalClosed();
    onClose();
  });
}
