import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMemoryEventStore } from '@stagecraft/event-store';
import type { EventStore, NewEvent } from '@stagecraft/event-store';
import type { ReadModel } from '@stagecraft/read-models';
import { pacedCheckpoints } from './paced-checkpoints';
import { ViewHost } from './view-host';

/** Counts `Counted` events: simple enough that any other outcome is the host's doing. */
const counter: ReadModel<{ count: number }> = {
  name: 'counter',
  handles: ['Counted'],
  initialState: () => ({ count: 0 }),
  evolve: (view) => ({ count: view.count + 1 }),
};
const counted = (n: number): NewEvent[] => Array.from({ length: n }, () => ({ id: randomUUID(), type: 'Counted', data: {}, metadata: {} }));

describe('the view host', () => {
  let store: EventStore;
  let host: ViewHost | undefined;
  beforeEach(() => (store = createMemoryEventStore()));
  afterEach(async () => {
    await host?.stop();
    await store.close();
  });

  it('answers a read without a position only once the view has caught up with the log', async () => {
    for (let i = 0; i < 20; i += 1) await store.appendToStream(`s-${i}`, counted(500));
    host = await ViewHost.start(store, [counter]);
    const { position, state } = await host.read(counter, undefined, 5_000);
    expect({ position, state }).toEqual({ position: 10_000n, state: { count: 10_000 } });
  });

  it('waits for a position, answers TIMEOUT when it does not come, and shares one wait among reads of the same position', async () => {
    host = await ViewHost.start(store, [counter], { maxWaits: 2 });
    const later = host.read(counter, 3n, 5_000);
    await store.appendToStream('s', counted(3));
    expect((await later).state).toEqual({ count: 3 });
    await expect(host.read(counter, 50n, 50)).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: 'counter did not reach position 50 within 50 ms',
    });
    await expect(host.read(counter, 50n, 10)).rejects.toMatchObject({ code: 'TIMEOUT' });
    await expect(host.read(counter, 60n, 10)).rejects.toMatchObject({ code: 'TIMEOUT' });
    // Two positions are still awaited (50 and 60): a third is refused rather than kept waiting for ever.
    await expect(host.read(counter, 70n, 10)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await store.appendToStream('s', counted(60));
    expect((await host.read(counter, 60n, 1_000)).state.count).toBeGreaterThanOrEqual(60);
    // Both waits ended with their positions: new ones are taken again.
    const again = host.read(counter, 70n, 1_000);
    await store.appendToStream('s', counted(10));
    expect((await again).state.count).toBeGreaterThanOrEqual(70);
  });

  it('writes, when stopped, the checkpoint a paced save skipped', async () => {
    await store.appendToStream('s', counted(250));
    host = await ViewHost.start(store, [counter], { checkpointGapMs: 60_000, batchSize: 100 });
    await host.read(counter, 250n, 1_000);
    expect((await store.checkpoints.load('counter'))?.position).toBe(100n);
    await host.stop();
    host = undefined;
    expect(await store.checkpoints.load('counter')).toEqual({ position: 250n, state: { count: 250 } });
  });

  it('keeps answering the last view of a model that failed, refuses waits for later positions, and saves nothing of it', async () => {
    const failures: string[] = [];
    const fragile: ReadModel<{ count: number }> = {
      ...counter,
      evolve: (view, event) => {
        if (event.streamId === 'poison') throw new Error('cannot fold this');
        return counter.evolve(view, event);
      },
    };
    await store.appendToStream('s', counted(2));
    host = await ViewHost.start(store, [fragile], {
      checkpointGapMs: 60_000,
      onFailure: (name, error) => failures.push(`${name}: ${(error as Error).message}`),
    });
    await host.read(fragile, 2n, 1_000);
    await store.appendToStream('poison', counted(1));
    await expect(host.read(fragile, 3n, 1_000)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(failures).toEqual(['counter: cannot fold this']);
    expect((await host.read(fragile, 1n, 1_000)).state).toEqual({ count: 2 });
    await host.stop();
    host = undefined;
    expect((await store.checkpoints.load('counter'))?.position ?? 0n).toBeLessThan(3n);
  });
});

describe('a view whose checkpoint cannot be written', () => {
  it('goes on folding and answering, reports each failed write, and writes once it can', async () => {
    const store = createMemoryEventStore();
    let refusing = true;
    const refused: string[] = [];
    const flaky: EventStore = Object.create(store, {
      checkpoints: {
        value: {
          load: (name: string) => store.checkpoints.load(name),
          save: async (name: string, position: bigint, state: unknown) => {
            if (refusing) throw new Error('event too large');
            await store.checkpoints.save(name, position, state);
          },
        },
      },
    });
    const host = await ViewHost.start(flaky, [counter], {
      checkpointGapMs: 0,
      onCheckpointError: (name, e) => refused.push(`${name}: ${(e as Error).message}`),
    });
    await store.appendToStream('s', counted(5));
    expect((await host.read(counter, 5n, 1_000)).state).toEqual({ count: 5 });
    // The runner asks for its save once it has nothing left to fold.
    for (let tries = 0; tries < 200 && refused.length === 0; tries += 1) await sleep(5);
    expect(refused[0]).toBe('counter: event too large');
    await store.appendToStream('s', counted(1));
    expect((await host.read(counter, 6n, 1_000)).state).toEqual({ count: 6 });
    expect(await store.checkpoints.load('counter')).toBeNull();
    refusing = false;
    await host.stop();
    expect(await store.checkpoints.load('counter')).toEqual({ position: 6n, state: { count: 6 } });
    await store.close();
  });
});

describe('paced checkpoints', () => {
  it('writes at most once per gap, at least twenty times the last write apart, and flushes what it skipped', async () => {
    const store = createMemoryEventStore();
    let now = 0;
    const paced = pacedCheckpoints(store.checkpoints, 100, () => now);
    await paced.save('v', 1n, { n: 1 });
    now = 50;
    await paced.save('v', 2n, { n: 2 });
    expect(await paced.load('v')).toEqual({ position: 1n, state: { n: 1 } });
    now = 100;
    await paced.save('v', 3n, { n: 3 });
    expect(await paced.load('v')).toEqual({ position: 3n, state: { n: 3 } });
    await paced.flush(3n, { n: 3 });
    now = 150;
    await paced.save('v', 4n, { n: 4 });
    await paced.flush(5n, { n: 5 });
    expect(await paced.load('v')).toEqual({ position: 5n, state: { n: 5 } });
    await store.close();
  });

  it('stretches the gap to twenty times what the last write took', async () => {
    const store = createMemoryEventStore();
    let now = 0;
    const slow = {
      ...store.checkpoints,
      save: async (...args: Parameters<typeof store.checkpoints.save>) => ((now += 30), store.checkpoints.save(...args)),
    };
    const paced = pacedCheckpoints(slow, 100, () => now);
    await paced.save('v', 1n, 1);
    now += 500;
    await paced.save('v', 2n, 2);
    expect((await paced.load('v'))?.position).toBe(1n);
    now += 100;
    await paced.save('v', 3n, 3);
    expect((await paced.load('v'))?.position).toBe(3n);
    await store.close();
  });
});
