import { newEvents } from '../contract/fixtures';
import { createMemoryCheckpointStore } from '../memory/memory-checkpoints';
import { createMemoryEventStore } from '../memory/memory-event-store';
import { PAGE_SIZE } from './pages';
import type { Projection } from './projection';
import { rebuildProjection, rebuildProjections } from './rebuild-projection';

/** Remembers the order of the types it was handed, so a fold that skips or repeats one shows. */
const seen = (name: string, handles: string[]): Projection<string[]> => ({
  name,
  handles,
  initialState: () => [],
  evolve: (state, event) => [...state, `${event.type}@${event.position}`],
});

describe('rebuildProjections', () => {
  it('gives each projection the state and checkpoint that rebuilding it on its own gives, in one read of the log', async () => {
    const store = createMemoryEventStore();
    await store.appendToStream('a', newEvents(PAGE_SIZE + 3, 'Counted'));
    await store.appendToStream('b', newEvents(4, 'Ignored'));
    await store.appendToStream('c', newEvents(5, 'Shared'));
    await store.appendToStream('d', newEvents(2, 'Other'));
    const projections = [seen('counted', ['Counted', 'Shared']), seen('shared', ['Shared', 'Shared']), seen('none', ['Missing'])];

    const alone = createMemoryCheckpointStore();
    const expected = [];
    for (const p of projections) expected.push(await rebuildProjection(store, p, { checkpoints: alone }));
    const together = createMemoryCheckpointStore();
    const states = await rebuildProjections(store, projections, { checkpoints: together });

    expect(states).toEqual(expected);
    expect((states[0] as string[]).length).toBe(PAGE_SIZE + 8);
    expect((states[1] as string[]).length).toBe(5);
    for (const p of projections) expect(await together.load(p.name)).toEqual(await alone.load(p.name));
    expect((await together.load('none'))?.position).toBe(0n);
  });
});
