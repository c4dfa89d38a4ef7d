import { randomUUID } from 'node:crypto';
import { EventStore, Projection, createMemoryCheckpointStore, createMemoryEventStore } from '@stagecraft/event-store';
import { verifyView } from './verify-view';

/** Counts `Counted` events per stream; other types are in the log but not folded. */
const counts: Projection<Record<string, number>> = {
  name: 'counts',
  handles: ['Counted'],
  initialState: () => ({}),
  evolve: (state, event) => ({ ...state, [event.streamId]: (state[event.streamId] ?? 0) + 1 }),
};

const events = (...types: string[]) => types.map((type) => ({ id: randomUUID(), type, data: {}, metadata: {} }));

describe('verifyView', () => {
  let store: EventStore;
  beforeEach(async () => {
    store = createMemoryEventStore();
    await store.appendToStream('s-a', events('Counted', 'Other', 'Counted'));
    await store.appendToStream('s-b', events('Counted', 'Other'));
  });

  it('has nothing to compare before the view has a checkpoint, and writes none', async () => {
    expect(await verifyView(store, store.checkpoints, createMemoryCheckpointStore(), counts)).toEqual({
      kind: 'no-checkpoint',
      position: 4n,
    });
    expect(await store.checkpoints.load('counts')).toBeNull();
  });

  it('finds a live view that folded only part of the log the same once its tail is folded, and leaves its checkpoint as it was', async () => {
    // Saved by a runner that saw the whole log up to `Other` on s-a, an event it does not fold.
    await store.checkpoints.save('counts', 2n, { 's-a': 1 });
    expect(await verifyView(store, store.checkpoints, createMemoryCheckpointStore(), counts)).toEqual({
      kind: 'same',
      position: 4n,
      bytes: Buffer.byteLength('{"s-a":2,"s-b":1}'),
    });
    // Saved at an event it does not fold, past the last one it does: the same view.
    await store.checkpoints.save('counts', 5n, { 's-a': 2, 's-b': 1 });
    expect(await verifyView(store, store.checkpoints, createMemoryCheckpointStore(), counts)).toMatchObject({ kind: 'same' });
    expect(await store.checkpoints.load('counts')).toEqual({ position: 5n, state: { 's-a': 2, 's-b': 1 } });
  });

  it('names the values of a live view that differs from its rebuild', async () => {
    await store.checkpoints.save('counts', 5n, { 's-a': 3, 's-b': 1 });
    expect(await verifyView(store, store.checkpoints, createMemoryCheckpointStore(), counts)).toEqual({
      kind: 'differs',
      position: 4n,
      differences: [{ path: '$["s-a"]', live: '3', rebuilt: '2' }],
    });
  });
});
