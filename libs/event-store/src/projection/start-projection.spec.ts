import { newEvents } from '../contract/fixtures';
import { createMemoryCheckpointStore } from '../memory/memory-checkpoints';
import { createMemoryEventStore } from '../memory/memory-event-store';
import type { CheckpointStore, EventReader, Position, ReadAllOptions, SubscribeToAllOptions } from '../port';
import { PAGE_SIZE } from './pages';
import type { Projection } from './projection';
import { rebuildProjection } from './rebuild-projection';
import { startProjection } from './start-projection';

const counter: Projection<{ count: number }> = {
  name: 'counter',
  handles: ['Counted'],
  initialState: () => ({ count: 0 }),
  evolve: (state) => ({ count: state.count + 1 }),
};

/** A real checkpoint store that also remembers every save, to see when the runner commits. */
function recordingCheckpoints(): CheckpointStore & { saves: { position: Position; count: number }[] } {
  const inner = createMemoryCheckpointStore();
  const saves: { position: Position; count: number }[] = [];
  return {
    saves,
    load: (name) => inner.load(name),
    async save(name, position, state) {
      saves.push({ position, count: (state as { count: number }).count });
      await inner.save(name, position, state);
    },
  };
}

describe('startProjection', () => {
  it('commits a checkpoint every batchSize handled events while catching up, then once when idle', async () => {
    const store = createMemoryEventStore();
    const { position } = await store.appendToStream('s', newEvents(25, 'Counted'));
    const checkpoints = recordingCheckpoints();
    const running = await startProjection(store, checkpoints, counter, { batchSize: 10 });
    await running.waitForPosition(position);
    await running.stop();
    expect(checkpoints.saves.map((s) => s.count)).toEqual([10, 20, 25]);
    expect(checkpoints.saves.at(-1)?.position).toBe(position);
  });

  it('moves the checkpoint past events it does not handle', async () => {
    const store = createMemoryEventStore();
    await store.appendToStream('s', newEvents(2, 'Counted'));
    const { position } = await store.appendToStream('other', newEvents(3, 'Ignored'));
    const checkpoints = recordingCheckpoints();
    const running = await startProjection(store, checkpoints, counter);
    await running.waitForPosition(position);
    await running.stop();
    expect(await checkpoints.load('counter')).toEqual({ position, state: { count: 2 } });
  });

  it('rejects waiters and ends when evolve throws', async () => {
    const store = createMemoryEventStore();
    const failing: Projection<{ count: number }> = {
      ...counter,
      evolve: () => {
        throw new Error('bad event');
      },
    };
    const running = await startProjection(store, createMemoryCheckpointStore(), failing);
    const waiting = running.waitForPosition(1n);
    await store.appendToStream('s', newEvents(1, 'Counted'));
    await expect(running.done).rejects.toThrow('bad event');
    await expect(waiting).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(running.waitForPosition(5n)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('catches up a page of its own types at a time, passes over the rest up to the head, and only then subscribes', async () => {
    const store = createMemoryEventStore();
    await store.appendToStream('s', newEvents(PAGE_SIZE + 5, 'Counted'));
    await store.appendToStream('other', newEvents(40, 'Ignored'));
    await store.appendToStream('s', newEvents(3, 'Counted'));
    const { position: head } = await store.appendToStream('other', newEvents(30, 'Ignored'));
    const reader = watchedReader(store);
    const checkpoints = recordingCheckpoints();
    const running = await startProjection(reader, checkpoints, counter, { batchSize: 500 });
    await running.caughtUp;
    expect(reader.reads.every((r) => JSON.stringify(r.types) === JSON.stringify(['Counted']) && r.maxCount === PAGE_SIZE)).toBe(true);
    expect(reader.reads).toHaveLength(2);
    expect(reader.subscribedFrom).toEqual([head]);
    expect(running.current()).toEqual({ position: head, state: { count: PAGE_SIZE + 8 } });
    const live = await store.appendToStream('s', newEvents(2, 'Counted'));
    await running.waitForPosition(live.position);
    await running.stop();
    // Saved every batchSize handled events across the pages, then whenever the log had nothing more ready.
    expect(checkpoints.saves.map((s) => s.count)).toEqual([500, 1000, PAGE_SIZE + 8, PAGE_SIZE + 10]);
    expect(checkpoints.saves[2].position).toBe(head);
    expect(await checkpoints.load('counter')).toEqual({ position: live.position, state: { count: PAGE_SIZE + 10 } });
    expect(await rebuildProjection(store, counter)).toEqual({ count: PAGE_SIZE + 10 });
  });

  it('subscribes from its last event when the reader cannot tell where the head is, and ends in the same place', async () => {
    const store = createMemoryEventStore();
    const { position: last } = await store.appendToStream('s', newEvents(7, 'Counted'));
    const { position: head } = await store.appendToStream('other', newEvents(5, 'Ignored'));
    const reader = watchedReader(store, { withoutHead: true });
    const running = await startProjection(reader, createMemoryCheckpointStore(), counter);
    await running.caughtUp;
    expect(reader.subscribedFrom).toEqual([last]);
    await running.waitForPosition(head);
    expect(running.current()).toEqual({ position: head, state: { count: 7 } });
    await running.stop();
  });

  it('ends, with its waiters rejected, when its checkpoint cannot be saved or its subscription fails', async () => {
    const store = createMemoryEventStore();
    const { position } = await store.appendToStream('s', newEvents(3, 'Counted'));
    const unsaved = await startProjection(store, { load: async () => null, save: () => Promise.reject(new Error('disk gone')) }, counter);
    const waiting = unsaved.waitForPosition(position + 10n);
    await expect(unsaved.done).rejects.toThrow('disk gone');
    await expect(waiting).rejects.toMatchObject({ code: 'UNAVAILABLE' });

    const broken: EventReader = {
      ...store,
      readAll: (options) => store.readAll(options),
      readStream: (stream, options) => store.readStream(stream, options),
      subscribeToAll: () => ({
        close: async () => undefined,
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('connection lost')) }),
      }),
    };
    const unsubscribed = await startProjection(broken, createMemoryCheckpointStore(), counter);
    await expect(unsubscribed.done).rejects.toThrow('connection lost');
    expect(unsubscribed.current()).toEqual({ position, state: { count: 3 } });
  });
});

/** A real store's reader that remembers what the runner read and where it subscribed from. */
function watchedReader(
  inner: EventReader,
  options: { withoutHead?: boolean } = {},
): EventReader & { reads: ReadAllOptions[]; subscribedFrom: SubscribeToAllOptions['fromPosition'][] } {
  const reads: ReadAllOptions[] = [];
  const subscribedFrom: SubscribeToAllOptions['fromPosition'][] = [];
  return {
    reads,
    subscribedFrom,
    readStream: (stream, readOptions) => inner.readStream(stream, readOptions),
    readAll: (readOptions = {}) => (reads.push(readOptions), inner.readAll(readOptions)),
    subscribeToAll: (subscribeOptions) => (subscribedFrom.push(subscribeOptions.fromPosition), inner.subscribeToAll(subscribeOptions)),
    ...(options.withoutHead || !inner.headPosition ? {} : { headPosition: () => inner.headPosition!() }),
  };
}
