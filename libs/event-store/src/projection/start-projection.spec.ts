import { newEvents } from '../contract/fixtures';
import { createMemoryCheckpointStore } from '../memory/memory-checkpoints';
import { createMemoryEventStore } from '../memory/memory-event-store';
import type { CheckpointStore, Position } from '../port';
import type { Projection } from './projection';
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
});
