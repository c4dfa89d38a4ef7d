import { ConcurrencyError } from '../errors';
import { newEvents } from '../contract/fixtures';
import { describeEventStoreContract } from '../contract/event-store.contract';
import { MAX_APPEND_BYTES } from '../shared/append-limit';
import { piecesOf } from '../checkpoints/pieces';
import { createMemoryEventStore } from './memory-event-store';
import { createMemoryCheckpointStore, memoryCheckpointRecords } from './memory-checkpoints';

describeEventStoreContract('memory', () => createMemoryEventStore());

describe('memory event store', () => {
  it('refuses a batch that repeats an earlier event of the stream out of place, appending nothing', async () => {
    const store = createMemoryEventStore();
    const [a, b, c] = newEvents(3);
    await store.appendToStream('s', [a, b]);
    await expect(store.appendToStream('s', [c, a])).rejects.toBeInstanceOf(ConcurrencyError);
    expect((await store.readStream('s')).map((e) => e.id)).toEqual([a.id, b.id]);
  });

  it('refuses, as KurrentDB does, an event or a batch over its 1 MiB append limit, appending nothing', async () => {
    const store = createMemoryEventStore();
    const [one, two, three] = newEvents(3);
    const tooLarge = { ...one, data: { text: 'x'.repeat(MAX_APPEND_BYTES) } };
    const halves = [two, three].map((e) => ({ ...e, data: { text: 'y'.repeat(MAX_APPEND_BYTES / 2) } }));
    for (const batch of [[tooLarge], halves]) {
      await expect(store.appendToStream('large', batch)).rejects.toMatchObject({
        code: 'VALIDATION',
        message: expect.stringContaining("append to 'large' too large for KurrentDB"),
        issues: [{ path: ['events'], message: expect.stringContaining(`${MAX_APPEND_BYTES} bytes`) }],
      });
    }
    expect(await store.readStream('large')).toEqual([]);
    await store.appendToStream('large', halves.slice(0, 1));
    expect(await store.readStream('large')).toHaveLength(1);
  });
});

describe('memory checkpoints, kept as the KurrentDB adapter keeps them', () => {
  const big = (tag: string) => ({ tag, rows: Array.from({ length: 20_000 }, (_, i) => `${tag} row ${i}`.padEnd(60, '-')) });

  it('refuses a checkpoint record over the append limit: a state that large only goes in pieces', async () => {
    const records = memoryCheckpointRecords();
    await expect(records.writeHead('view', { position: 1n, state: big('a') })).rejects.toMatchObject({ code: 'VALIDATION' });
    const checkpoints = createMemoryCheckpointStore(records);
    await checkpoints.save('view', 1n, big('a'));
    expect(await checkpoints.load('view')).toEqual({ position: 1n, state: big('a') });
  });

  it('loads a head whose pieces are not the ones it was saved with as no checkpoint, and saves whole again after', async () => {
    const records = memoryCheckpointRecords();
    const checkpoints = createMemoryCheckpointStore(records);
    await checkpoints.save('view', 1n, big('a'));
    const head = await records.readHead('view');
    if (!head || !('pieces' in head)) throw new Error('expected a head naming pieces');
    expect(head.pieces.count).toBeGreaterThan(2);

    // The head of a newer save over the pieces of the older one (a saver that raced, or died halfway).
    const newer = piecesOf(JSON.stringify(big('b')));
    await records.writeHead('view', { position: 2n, pieces: { ...head.pieces, ...newer.sum } });
    expect(await checkpoints.load('view')).toBeNull();

    // The older head over pieces a later saver wrote into its slot.
    await records.writeHead('view', head);
    expect(await checkpoints.load('view')).toEqual({ position: 1n, state: big('a') });
    await records.writePieces(
      'view',
      head.pieces.slot,
      newer.pieces.map((p) => p.toString('base64')),
    );
    expect(await checkpoints.load('view')).toBeNull();

    await checkpoints.save('view', 3n, big('c'));
    expect(await checkpoints.load('view')).toEqual({ position: 3n, state: big('c') });
  });

  it('writes each save into the slot the current head does not use, so a save that fails halfway leaves the last one whole', async () => {
    const records = memoryCheckpointRecords();
    const checkpoints = createMemoryCheckpointStore(records);
    await checkpoints.save('view', 1n, big('a'));
    const slots = [];
    for (const [position, tag] of [
      [2n, 'b'],
      [3n, 'c'],
    ] as const) {
      await checkpoints.save('view', position, big(tag));
      const head = await records.readHead('view');
      slots.push(head && 'pieces' in head ? head.pieces.slot : null);
    }
    expect(slots).toEqual([1, 0]);
    // A save that dies after its pieces, before its head.
    await records.writePieces('view', 1, ['a piece of a save that never wrote its head']);
    expect(await checkpoints.load('view')).toEqual({ position: 3n, state: big('c') });
  });
});
