import { setTimeout as sleep } from 'node:timers/promises';
import { newEvents, uniqueStream } from '../contract/fixtures';
import type { CheckpointStore, EventStore, Position, RecordedEvent } from '../port';
import type { ProcessorFailure } from './processor';
import { startProcessor } from './start-processor';

/** The processor runner against one store; every test gets a fresh store, so positions are its own. */
export function describeProcessorRunner(kind: string, open: () => EventStore): void {
  describe(`startProcessor (${kind})`, () => {
    let store: EventStore;
    beforeEach(() => (store = open()));
    afterEach(() => store.close());

    const ids = (events: readonly RecordedEvent[]) => events.map((e) => e.id);
    const fast = { retry: { initialMs: 1, maxMs: 8 } };

    it('awaits handle for each event in global order, one at a time, then follows live appends', async () => {
      const a = await store.appendToStream(uniqueStream('a'), newEvents(2));
      await store.appendToStream(uniqueStream('b'), newEvents(2));
      const seen: RecordedEvent[] = [];
      let inFlight = 0;
      const running = await startProcessor(store, store.checkpoints, {
        name: 'ordered',
        async handle(event) {
          inFlight += 1;
          expect(inFlight).toBe(1);
          await sleep(2);
          seen.push(event);
          inFlight -= 1;
        },
      });
      await running.caughtUp;
      expect(seen).toHaveLength(4);
      expect(seen[1].position).toBe(a.position);
      const live = await store.appendToStream(uniqueStream('c'), newEvents(3));
      await running.waitForPosition(live.position);
      await running.stop();
      expect(ids(seen)).toEqual(ids(await store.readAll()));
      expect(await store.checkpoints.load('ordered')).toEqual({ position: live.position, state: null });
    });

    it('resumes after its checkpoint: a restart handles only what came later', async () => {
      const handled: string[] = [];
      const processor = { name: 'resuming', handles: ['Counted'], handle: async (e: RecordedEvent) => void handled.push(e.id) };
      const first = await store.appendToStream(uniqueStream('s'), newEvents(3, 'Counted'));
      const one = await startProcessor(store, store.checkpoints, processor);
      await one.waitForPosition(first.position);
      await one.stop();
      const later = newEvents(2, 'Counted');
      const second = await store.appendToStream(uniqueStream('s'), [...later, ...newEvents(1, 'Other')]);
      const two = await startProcessor(store, store.checkpoints, processor);
      await two.waitForPosition(second.position);
      await two.stop();
      expect(handled).toHaveLength(5);
      expect(handled.slice(3)).toEqual(later.map((e) => e.id));
      expect((await store.checkpoints.load('resuming'))?.position).toBe(second.position);
    });

    it('saves no checkpoint past an event whose effect has not finished', async () => {
      const { position } = await store.appendToStream(uniqueStream('s'), newEvents(2));
      let release!: () => void;
      const blocked = new Promise<void>((resolve) => (release = resolve));
      const running = await startProcessor(store, store.checkpoints, {
        name: 'blocked',
        handle: (e) => (e.position === position ? blocked : Promise.resolve()),
      });
      await sleep(30);
      expect((await store.checkpoints.load('blocked'))?.position ?? 0n).toBeLessThan(position);
      release();
      await running.waitForPosition(position);
      await running.stop();
      expect((await store.checkpoints.load('blocked'))?.position).toBe(position);
    });

    it('retries a failing handle with growing delays and never skips the event', async () => {
      const events = newEvents(3);
      const { position } = await store.appendToStream(uniqueStream('s'), events);
      const failures: ProcessorFailure[] = [];
      const handled: string[] = [];
      let tries = 0;
      const running = await startProcessor(
        store,
        store.checkpoints,
        {
          name: 'retrying',
          async handle(event) {
            if (event.id === events[1].id && (tries += 1) <= 3) throw new Error(`refused ${tries}`);
            handled.push(event.id);
          },
        },
        { ...fast, onError: (f) => failures.push(f) },
      );
      await running.waitForPosition(position);
      await running.stop();
      expect(handled).toEqual(events.map((e) => e.id));
      expect(failures.map((f) => [f.during, f.attempt, f.retryInMs, f.event?.id, (f.error as Error).message])).toEqual([
        ['handle', 1, 1, events[1].id, 'refused 1'],
        ['handle', 2, 2, events[1].id, 'refused 2'],
        ['handle', 3, 4, events[1].id, 'refused 3'],
      ]);
    });

    it('stops while retrying with its checkpoint before the failing event, which the next start handles', async () => {
      const events = newEvents(3);
      const { position } = await store.appendToStream(uniqueStream('s'), events);
      let broken = true;
      const handled: string[] = [];
      const processor = {
        name: 'stopped-retrying',
        async handle(event: RecordedEvent) {
          if (broken && event.id === events[1].id) throw new Error('down');
          handled.push(event.id);
        },
      };
      let failed!: () => void;
      const failing = new Promise<void>((resolve) => (failed = resolve));
      const one = await startProcessor(store, store.checkpoints, processor, { retry: { initialMs: 60_000 }, onError: () => failed() });
      await failing;
      await one.stop();
      const saved = await store.checkpoints.load('stopped-retrying');
      expect(saved?.position).toBeLessThan(position);
      expect(handled).toEqual([events[0].id]);
      await expect(one.caughtUp).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(one.waitForPosition(position)).rejects.toMatchObject({ code: 'UNAVAILABLE' });

      broken = false;
      const two = await startProcessor(store, store.checkpoints, processor);
      await two.waitForPosition(position);
      await two.stop();
      expect(handled).toEqual(events.map((e) => e.id));
    });

    it('repeats, never loses, the effects after its last saved checkpoint when it dies without saving', async () => {
      const handled: string[] = [];
      const processor = { name: 'crashing', handle: async (e: RecordedEvent) => void handled.push(e.id) };
      const first = await store.appendToStream(uniqueStream('s'), newEvents(2));
      const one = await startProcessor(store, store.checkpoints, processor);
      await one.waitForPosition(first.position);
      await one.caughtUp;
      await sleep(10);
      // From here on this runner's saves are lost, as in a process killed before its next save.
      const lost: string[] = [];
      const failures: ProcessorFailure[] = [];
      const dying = await startProcessor(
        store,
        losingSaves(store.checkpoints, lost),
        { ...processor, name: 'crashing' },
        { onError: (f) => failures.push(f) },
      );
      await one.stop();
      const tail = newEvents(3);
      const second = await store.appendToStream(uniqueStream('s'), tail);
      await dying.waitForPosition(second.position);
      await dying.stop();
      expect(failures.map((f) => f.during)).toContain('checkpoint');
      expect((await store.checkpoints.load('crashing'))?.position).toBe(first.position);

      const restarted = await startProcessor(store, store.checkpoints, processor);
      await restarted.waitForPosition(second.position);
      await restarted.stop();
      const tailIds = tail.map((e) => e.id);
      expect(handled.filter((id) => tailIds.includes(id))).toEqual([...tailIds, ...tailIds]);
    });

    it('acts only on the events its handles test selects, and moves the checkpoint past the rest', async () => {
      const handled: string[] = [];
      await store.appendToStream('run-1', newEvents(2));
      const { position } = await store.appendToStream('other-1', newEvents(2));
      const running = await startProcessor(store, store.checkpoints, {
        name: 'selective',
        handles: (e) => e.streamId.startsWith('run-'),
        handle: async (e) => void handled.push(e.streamId),
      });
      await running.waitForPosition(position);
      await running.stop();
      expect(handled).toEqual(['run-1', 'run-1']);
      expect((await store.checkpoints.load('selective'))?.position).toBe(position);
    });

    it('reports a checkpoint it could not save and goes on handling', async () => {
      const failures: ProcessorFailure[] = [];
      const handled: string[] = [];
      const running = await startProcessor(
        store,
        losingSaves(store.checkpoints, []),
        { name: 'unsaved', handle: async (e) => void handled.push(e.id) },
        { onError: (f) => failures.push(f) },
      );
      const first = await store.appendToStream(uniqueStream('s'), newEvents(1));
      await running.waitForPosition(first.position);
      await sleep(10);
      const second = await store.appendToStream(uniqueStream('s'), newEvents(1));
      await running.waitForPosition(second.position);
      await running.stop();
      expect(handled).toHaveLength(2);
      expect(failures.length).toBeGreaterThan(0);
      expect(failures.every((f) => f.during === 'checkpoint' && (f.error as Error).message === 'disk gone')).toBe(true);
    });
  });
}

/** A checkpoint store whose saves all fail, as after a crash; records the positions it was asked to save. */
function losingSaves(inner: CheckpointStore, asked: string[]): CheckpointStore {
  return {
    load: (name) => inner.load(name),
    async save(_name: string, position: Position) {
      asked.push(String(position));
      throw new Error('disk gone');
    },
  };
}
