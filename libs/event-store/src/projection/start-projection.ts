import { StagecraftError } from '@stagecraft/contracts';
import { trackLag } from '@stagecraft/telemetry';
import type { CheckpointStore, EventReader, Position, RecordedEvent } from '../port';
import { lagOf } from './lag';
import type { Projection, ProjectionOptions, RunningProjection } from './projection';

interface PositionWaiter {
  position: Position;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Resumes from the saved checkpoint and folds every later event. A checkpoint (position and state
 * together) is saved every `batchSize` handled events and whenever the subscription has nothing
 * ready, so a restart neither misses nor repeats an event.
 */
export async function startProjection<S>(
  store: EventReader,
  checkpoints: CheckpointStore,
  projection: Projection<S>,
  options: ProjectionOptions<S> = {},
): Promise<RunningProjection<S>> {
  const batchSize = Math.max(1, options.batchSize ?? 100);
  const handles = new Set(projection.handles);
  const saved = await checkpoints.load<S>(projection.name);
  let state = saved ? saved.state : projection.initialState();
  let position: Position = saved ? saved.position : 0n;
  let savedPosition = position;
  let unsavedHandled = 0;
  let unsavedSeen = 0;
  let finished = false;
  const waiters = new Set<PositionWaiter>();
  const subscription = store.subscribeToAll({ fromPosition: position });

  async function save(): Promise<void> {
    if (position === savedPosition) return;
    await checkpoints.save(projection.name, position, state);
    savedPosition = position;
    unsavedHandled = 0;
    unsavedSeen = 0;
    options.onUpdate?.({ position, state });
  }

  function apply(event: RecordedEvent): void {
    if (handles.has(event.type)) {
      state = projection.evolve(state, event);
      unsavedHandled += 1;
    }
    unsavedSeen += 1;
    position = event.position;
    for (const waiter of waiters) {
      if (waiter.position > position) continue;
      waiters.delete(waiter);
      waiter.resolve();
    }
  }

  async function run(): Promise<void> {
    const events = subscription[Symbol.asyncIterator]();
    let next = events.next();
    for (;;) {
      if (unsavedHandled > 0 && (await nothingReady(next))) await save();
      const result = await next;
      if (result.done) break;
      apply(result.value);
      next = events.next();
      // Unhandled events also move the checkpoint now and then, so a restart does not rescan a long tail.
      if (unsavedHandled >= batchSize || unsavedSeen >= batchSize * 10) await save();
    }
    await save();
  }

  const untrack = trackLag(
    projection.name,
    lagOf(store, () => position),
  );
  const done = run().finally(async () => {
    finished = true;
    untrack();
    await subscription.close();
    const stopped = new StagecraftError('UNAVAILABLE', `projection ${projection.name} stopped at position ${position}`);
    for (const waiter of waiters) waiter.reject(stopped);
    waiters.clear();
  });
  // Observed here so a failure never becomes an unhandled rejection; callers still see it through `done`.
  done.catch(() => undefined);

  return {
    name: projection.name,
    done,
    current: () => ({ position, state }),
    waitForPosition(target) {
      if (position >= target) return Promise.resolve();
      if (finished) return Promise.reject(new StagecraftError('UNAVAILABLE', `projection ${projection.name} is not running`));
      return new Promise<void>((resolve, reject) => waiters.add({ position: target, resolve, reject }));
    },
    async stop() {
      await subscription.close();
      await done;
    },
  };
}

/** True when `next` is still pending after everything already queued has run. */
function nothingReady(next: Promise<unknown>): Promise<boolean> {
  return Promise.race([next.then(() => false), new Promise<boolean>((resolve) => setImmediate(() => resolve(true)))]);
}
