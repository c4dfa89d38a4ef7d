import { StagecraftEvent } from '@stagecraft/contracts';
import { createInprocBus } from './inproc-bus';
import { RunFeedEvent, firstSightings, publishRunEvent, subscribeRunEvents } from './publish';

const settle = () => new Promise((resolve) => setImmediate(resolve));

const stageEntered = (runId: string, id: string | undefined, position: number): RunFeedEvent =>
  ({
    type: 'RunFailed',
    data: { code: 'INTERNAL', reason: `at ${position}` },
    metadata: { runId, correlationId: 'corr-1', occurredAt: '2026-11-01T00:00:00.000Z' },
    ...(id === undefined ? {} : { id, position: String(position) }),
  }) as RunFeedEvent;

describe('the run feed', () => {
  it('delivers each event once when the feed repeats itself after a restart, id and position included', async () => {
    const bus = createInprocBus();
    const seen: RunFeedEvent[] = [];
    subscribeRunEvents(bus, 'p', 'r1', (e) => seen.push(e));
    for (const [id, position] of [
      ['e1', 1],
      ['e2', 2],
      ['e1', 1],
      ['e2', 2],
      ['e3', 3],
    ] as const)
      publishRunEvent(bus, 'p', stageEntered('r1', id, position));
    await settle();
    expect(seen.map((e) => [e.id, e.position])).toEqual([
      ['e1', '1'],
      ['e2', '2'],
      ['e3', '3'],
    ]);
  });

  it('passes every message without an id, and each subscriber keeps its own memory', async () => {
    const bus = createInprocBus();
    const first: StagecraftEvent[] = [];
    const second: StagecraftEvent[] = [];
    subscribeRunEvents(bus, 'p', 'r1', (e) => first.push(e));
    publishRunEvent(bus, 'p', stageEntered('r1', undefined, 0));
    publishRunEvent(bus, 'p', stageEntered('r1', undefined, 0));
    publishRunEvent(bus, 'p', stageEntered('r1', 'e1', 1));
    await settle();
    subscribeRunEvents(bus, 'p', 'r1', (e) => second.push(e));
    publishRunEvent(bus, 'p', stageEntered('r1', 'e1', 1));
    await settle();
    expect(first).toHaveLength(3);
    expect(second).toHaveLength(1);
  });

  it('firstSightings is the same filter for a client that subscribes by hand', () => {
    const isNew = firstSightings();
    expect([{ id: 'a' }, { id: 'b' }, { id: 'a' }, {}, {}].map(isNew)).toEqual([true, true, false, true, true]);
  });
});
