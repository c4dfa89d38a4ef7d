import { createInprocBus } from './inproc-bus';
import { BusFault } from './bus';
import { RunFeedEvent, StoredRunEvent, firstSightings, publishRunEvent, readRunFeedMessage, subscribeRunEvents } from './publish';

const settle = () => new Promise((resolve) => setImmediate(resolve));

const stageEntered = (runId: string, id: string | undefined, position: number): StoredRunEvent =>
  ({
    type: 'RunFailed',
    data: { code: 'INTERNAL', reason: `at ${position}` },
    metadata: { runId, correlationId: 'corr-1', occurredAt: '2026-11-01T00:00:00.000Z' },
    ...(id === undefined ? {} : { id, position: String(position) }),
  }) as StoredRunEvent;

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
    const first: RunFeedEvent[] = [];
    const second: RunFeedEvent[] = [];
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

  const requested = (runId: string): StoredRunEvent =>
    ({
      id: 'e-1',
      position: '7',
      type: 'ModelRequested',
      data: {
        requestId: `${runId}.m1`,
        stage: 'act',
        model: 'scripted',
        toolNames: [],
        messageCount: 2,
        tokenEstimate: 10,
        promptHash: 'a'.repeat(64),
        messageHashes: ['b'.repeat(64)],
        newBodies: { ['b'.repeat(64)]: 'a prompt body' },
      },
      metadata: { runId, occurredAt: '2026-11-01T00:00:00.000Z', chain: { prev: 'p', hash: 'h' } },
    }) as StoredRunEvent;

  it('puts the public event on the wire, never the stored one', async () => {
    const bus = createInprocBus();
    const wire: string[] = [];
    bus.subscribe('p.run.r1.events', (m) => wire.push(m.body));
    publishRunEvent(bus, 'p', requested('r1'));
    await settle();
    expect(wire.map((body) => JSON.parse(body))).toEqual([
      {
        version: 1,
        id: 'e-1',
        position: '7',
        type: 'ModelRequested',
        data: { requestId: 'r1.m1', stage: 'act', model: 'scripted', toolNames: [], messageCount: 2, tokenEstimate: 10 },
        metadata: { runId: 'r1', occurredAt: '2026-11-01T00:00:00.000Z' },
      },
    ]);
  });

  it('reads a message an earlier build published (the stored event) as its public event', () => {
    const earlier = JSON.stringify(requested('r1'));
    expect(readRunFeedMessage(earlier)).toMatchObject({ version: 1, id: 'e-1', type: 'ModelRequested', data: { requestId: 'r1.m1' } });
    expect(JSON.stringify(readRunFeedMessage(earlier))).not.toContain('a prompt body');
  });

  it('drops what is no public event, and tells the bus’s fault hook, while the events around it arrive', async () => {
    const faults: BusFault[] = [];
    const bus = createInprocBus({ onError: (fault) => faults.push(fault) });
    const seen: RunFeedEvent[] = [];
    subscribeRunEvents(bus, 'p', 'r1', (e) => seen.push(e));
    publishRunEvent(bus, 'p', stageEntered('r1', 'e1', 1));
    for (const body of [
      'not json',
      '42',
      JSON.stringify({ version: 1, type: 'RunFailed', data: {}, metadata: {} }),
      JSON.stringify({ type: 'Nope' }),
    ])
      bus.publish('p.run.r1.events', body);
    publishRunEvent(bus, 'p', stageEntered('r1', 'e2', 2));
    await settle();
    expect(seen.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(faults.map((f) => [f.during, f.subject])).toEqual(Array(4).fill(['deliver', 'p.run.r1.events']));
  });

  it('never throws on a stored event it cannot map: a fault, and the events around it go out', async () => {
    const faults: BusFault[] = [];
    const bus = createInprocBus({ onError: (fault) => faults.push(fault) });
    const seen: RunFeedEvent[] = [];
    subscribeRunEvents(bus, 'p', 'r1', (e) => seen.push(e));
    const broken = {
      type: 'ModelResponded',
      data: { requestId: 'r1.m1' },
      metadata: { runId: 'r1', occurredAt: '2026-11-01T00:00:00.000Z' },
    };
    publishRunEvent(bus, 'p', stageEntered('r1', 'e1', 1));
    expect(() => publishRunEvent(bus, 'p', broken as StoredRunEvent)).not.toThrow();
    publishRunEvent(bus, 'p', stageEntered('r1', 'e2', 2));
    await settle();
    expect(seen.map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(faults.map((f) => [f.during, f.subject])).toEqual([['publish', 'p.run.*.events']]);
  });
});
