import { randomUUID } from 'node:crypto';
import type { EventStore, NewEvent, Position, RecordedEvent } from '../port';

/** What each part of the contract needs: the store of the running test. */
export interface ContractContext {
  store(): EventStore;
}

/** Unique per test: a KurrentDB under test is shared and never emptied. */
export const uniqueStream = (prefix: string): string => `${prefix}-${randomUUID()}`;
export const uniqueType = (prefix: string): string => `${prefix}${randomUUID().replaceAll('-', '')}`;

export function newEvents(count: number, type = 'ContractTested', from = 0): NewEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    type,
    data: { index: from + i, label: `event ${from + i}`, tags: ['a', 'b'], nested: { ok: true, n: null } },
    metadata: { correlationId: `c-${from + i}`, occurredAt: '2025-01-01T00:00:00.000Z' },
  }));
}

/** A fresh position to read or subscribe after: everything appended later is the test's own. */
export async function markLog(store: EventStore): Promise<Position> {
  const result = await store.appendToStream(uniqueStream('marker'), newEvents(1, 'ContractMarker'));
  return result.position;
}

export async function readAllAfter(store: EventStore, after: Position, streams: ReadonlySet<string>): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  let from = after;
  for (;;) {
    const page = await store.readAll({ fromPosition: from, maxCount: 1000 });
    events.push(...page.filter((e) => streams.has(e.streamId)));
    if (page.length < 1000) return events;
    from = page[page.length - 1].position;
  }
}

export function expectStrictlyIncreasing(positions: readonly bigint[]): void {
  const violations = positions.filter((p, i) => i > 0 && p <= positions[i - 1]);
  expect(violations).toEqual([]);
}

/** Collects `count` events from a subscription, failing instead of hanging when they do not come. */
export async function collect(iterator: AsyncIterator<RecordedEvent>, count: number, timeoutMs = 20_000): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (events.length < count) {
    const remaining = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(remaining, 0))));
    const next = await Promise.race([iterator.next(), timeout]);
    clearTimeout(timer);
    if (next === 'timeout') throw new Error(`subscription delivered ${events.length} of ${count} events within ${timeoutMs} ms`);
    if (next.done) throw new Error(`subscription ended after ${events.length} of ${count} events`);
    events.push(next.value);
  }
  return events;
}
