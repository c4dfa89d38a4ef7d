import { randomUUID } from 'node:crypto';
import { catchUpProjection, rebuildProjection } from '../projection/rebuild-projection';
import { startProjection } from '../projection/start-projection';
import type { Projection, ProjectionUpdate } from '../projection/projection';
import type { EventStore } from '../port';
import { newEvents, uniqueStream, uniqueType, type ContractContext } from './fixtures';

interface SeenModel {
  ids: string[];
  perStream: Record<string, number>;
  lastRevisionSeen: Record<string, string>;
}

/** Records every handled event id in order: any miss or repeat shows up in `ids`. */
function seenProjection(name: string, handles: string[]): Projection<SeenModel> {
  return {
    name,
    handles,
    initialState: () => ({ ids: [], perStream: {}, lastRevisionSeen: {} }),
    evolve: (state, event) => ({
      ids: [...state.ids, event.id],
      perStream: { ...state.perStream, [event.streamId]: (state.perStream[event.streamId] ?? 0) + 1 },
      lastRevisionSeen: { ...state.lastRevisionSeen, [event.streamId]: event.revision.toString() },
    }),
  };
}

export function checkpointAndProjectionContract(ctx: ContractContext): void {
  describe('checkpoints', () => {
    it('loads null for an unknown name and the latest save otherwise', async () => {
      const { checkpoints } = ctx.store();
      const name = `contract-${randomUUID()}`;
      expect(await checkpoints.load(name)).toBeNull();
      await checkpoints.save(name, 5n, { count: 1, items: ['a'] });
      await checkpoints.save(name, 9n, { count: 2, items: ['a', 'b'] });
      expect(await checkpoints.load(name)).toEqual({ position: 9n, state: { count: 2, items: ['a', 'b'] } });
    });

    it('saves and loads a checkpoint of about 5 MB, far over one KurrentDB event, and a small one after it', async () => {
      const { checkpoints } = ctx.store();
      const name = `contract-${randomUUID()}`;
      const large = (round: number) => ({
        round,
        items: Array.from({ length: 50_000 }, (_, i) => ({ i, text: `item ${i} of ${round}: "quoted" \\ é✓ 😀`.padEnd(80, '.') })),
      });
      expect(Buffer.byteLength(JSON.stringify(large(1)))).toBeGreaterThan(5_000_000);
      for (const [position, state] of [
        [3n, large(1)],
        [4n, large(2)],
        [5n, { small: true }],
        [6n, large(3)],
      ] as const) {
        await checkpoints.save(name, position, state);
        expect(await checkpoints.load(name)).toEqual({ position, state });
      }
    }, 60_000);
  });

  describe('projections', () => {
    it('resumes from its checkpoint after a restart, missing and repeating nothing, and equals a rebuild byte for byte', async () => {
      const store = ctx.store();
      const [handledA, handledB, ignored] = [uniqueType('SeenA'), uniqueType('SeenB'), uniqueType('Ignored')];
      const projection = seenProjection(`contract-${randomUUID()}`, [handledA, handledB]);
      const streams = [uniqueStream('proj-a'), uniqueStream('proj-b')];
      const append = async (round: number) => {
        let last = 0n;
        for (let i = 0; i < 4; i += 1) {
          const events = [...newEvents(3, handledA), ...newEvents(2, ignored), ...newEvents(3, handledB)];
          last = (await store.appendToStream(streams[(round + i) % 2], events)).position;
        }
        return last;
      };

      const updates: ProjectionUpdate<SeenModel>[] = [];
      const first = await startProjection(store, store.checkpoints, projection, { batchSize: 5, onUpdate: (u) => updates.push(u) });
      await first.waitForPosition(await append(0));
      await first.waitForPosition(await append(1));
      await first.stop();
      const saved = await store.checkpoints.load<SeenModel>(projection.name);
      expect(saved).toEqual(first.current());
      expect(updates.length).toBeGreaterThan(1);
      expect(updates.map((u) => u.position)).toEqual([...updates.map((u) => u.position)].sort((a, b) => (a < b ? -1 : 1)));

      const whileStopped = await append(2);
      const second = await startProjection(store, store.checkpoints, projection, { batchSize: 5 });
      await second.waitForPosition(whileStopped);
      await second.waitForPosition(await append(3));
      await second.stop();

      const expected = await handledIdsInLogOrder(store, new Set(streams), new Set(projection.handles));
      expect(second.current().state.ids).toHaveLength(4 * 4 * 6);
      expect(second.current().state.ids).toEqual(expected);
      const rebuilt = await rebuildProjection(store, projection);
      expect(JSON.stringify(rebuilt)).toBe(JSON.stringify(second.current().state));
    });

    it('rebuilds into the checkpoint store when asked', async () => {
      const store = ctx.store();
      const type = uniqueType('Rebuilt');
      const projection = seenProjection(`contract-${randomUUID()}`, [type]);
      const stream = uniqueStream('rebuild');
      await store.appendToStream(stream, newEvents(4, type));
      const state = await rebuildProjection(store, projection, { checkpoints: store.checkpoints });
      expect(state.perStream).toEqual({ [stream]: 4 });
      expect((await store.checkpoints.load(projection.name))?.state).toEqual(state);
    });

    it('catches up from its checkpoint, folding only what came after it', async () => {
      const store = ctx.store();
      const type = uniqueType('CaughtUp');
      const projection = seenProjection(`contract-${randomUUID()}`, [type]);
      const stream = uniqueStream('catchup');
      await store.appendToStream(stream, newEvents(3, type));
      expect((await catchUpProjection(store, store.checkpoints, projection)).perStream).toEqual({ [stream]: 3 });
      await store.appendToStream(stream, newEvents(2, type));
      // A checkpoint saved with a marker shows the second catch-up started from it, not from zero.
      const saved = await store.checkpoints.load<SeenModel>(projection.name);
      await store.checkpoints.save(projection.name, saved!.position, { ...saved!.state, perStream: { marker: 1 } });
      expect((await catchUpProjection(store, store.checkpoints, projection)).perStream).toEqual({ marker: 1, [stream]: 2 });
      expect((await store.checkpoints.load(projection.name))?.state).toMatchObject({ perStream: { marker: 1, [stream]: 2 } });
    });
  });
}

async function handledIdsInLogOrder(store: EventStore, streams: ReadonlySet<string>, types: ReadonlySet<string>): Promise<string[]> {
  const perStream = await Promise.all([...streams].map((s) => store.readStream(s)));
  return perStream
    .flat()
    .filter((e) => types.has(e.type))
    .sort((a, b) => (a.position < b.position ? -1 : 1))
    .map((e) => e.id);
}
