import { StagecraftError } from '@stagecraft/contracts';
import { trackLag } from '@stagecraft/telemetry';
import type { CheckpointStore, EventReader, EventSubscription, Position, RecordedEvent } from '../port';
import { lagOf } from './lag';
import { pagesAfter } from './pages';
import type { Processor, ProcessorOptions, RunningProcessor } from './processor';

interface PositionWaiter {
  position: Position;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The one runner that follows the log, for processors and projections alike. Resumes right after the
 * saved checkpoint, catches up page by page when the processor names its event types (only those are
 * read), then follows the subscription, awaiting `handle` for each event in global order.
 */
export async function startProcessor<S = null>(
  reader: EventReader,
  checkpoints: CheckpointStore,
  processor: Processor<S>,
  options: ProcessorOptions<S> = {},
): Promise<RunningProcessor<S>> {
  const batchSize = Math.max(1, options.batchSize ?? 100);
  const saveWithinMs = Math.max(0, options.saveWithinMs ?? 250);
  const backoff = (attempt: number) => Math.min(options.retry?.maxMs ?? 30_000, (options.retry?.initialMs ?? 100) * 2 ** (attempt - 1));
  const stopOnFailure = options.onFailure === 'stop';
  const noun = options.noun ?? 'processor';
  const selects = selector(processor.handles);
  const types = typeof processor.handles === 'function' ? undefined : processor.handles;
  // Without an initial state only the position is kept, whatever `handle` returns.
  const keepsState = processor.initialState !== undefined;
  const saved = await checkpoints.load<S>(processor.name);
  let state = (keepsState ? (saved ? saved.state : processor.initialState!()) : null) as S;
  let position: Position = saved ? saved.position : 0n;
  let savedPosition = position;
  let unsavedHandled = 0;
  let unsavedSeen = 0;
  let checkpointFailures = 0;
  let caughtUpOnce = false;
  let stopping = false;
  let finished = false;
  /** What stopped a runner that stops on failure, when it happened outside the loop (a timed save). */
  let failure: { error: unknown } | undefined;
  let subscription: EventSubscription | undefined;
  let wakeFromPause: () => void = () => undefined;
  let markCaughtUp!: () => void;
  let neverCaughtUp!: (error: Error) => void;
  const caughtUp = new Promise<void>((resolve, reject) => ((markCaughtUp = resolve), (neverCaughtUp = reject)));
  caughtUp.catch(() => undefined);
  const waiters = new Set<PositionWaiter>();

  /** Resolves false at once when stopping: a stopped runner neither retries nor waits. */
  function pause(ms: number): Promise<boolean> {
    if (stopping) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(!stopping), ms);
      wakeFromPause = () => (clearTimeout(timer), resolve(false));
    });
  }

  let saving: Promise<void> | null = null;
  let saveTimer: NodeJS.Timeout | undefined;

  /** One save at a time; a save asked for during another waits for it and saves what it missed. */
  async function save(): Promise<void> {
    clearTimeout(saveTimer);
    saveTimer = undefined;
    while (saving) await saving;
    saving = saveNow().finally(() => (saving = null));
    await saving;
  }

  function saveSoon(): void {
    if (saveTimer || stopping) return;
    saveTimer = setTimeout(() => void save().catch(failWith), saveWithinMs);
    // A save still due never keeps a process alive: stopping saves, and a crash only costs repeats.
    saveTimer.unref();
  }

  async function saveNow(): Promise<void> {
    if (position === savedPosition) return;
    const at = { position, state };
    try {
      await checkpoints.save(processor.name, at.position, at.state);
      savedPosition = at.position;
      unsavedHandled = 0;
      unsavedSeen = 0;
      checkpointFailures = 0;
    } catch (error) {
      if (stopOnFailure) throw error;
      // Only costs repeats after a restart; the next save tries again.
      checkpointFailures += 1;
      options.onError?.({ during: 'checkpoint', error, attempt: checkpointFailures, retryInMs: 0 });
      return;
    }
    options.onSaved?.(at);
  }

  /** A failure outside the loop, for a runner that stops on failure: it stops, and `done` rejects with it. */
  function failWith(error: unknown): void {
    failure ??= { error };
    stopping = true;
    wakeFromPause();
    void subscription?.close();
  }

  /** False when stopped before `handle` succeeded: the event stays unhandled, and the checkpoint before it. */
  async function handleUntilDone(event: RecordedEvent): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = processor.handle(event, state);
        const next = isPromise(result) ? await result : result;
        if (keepsState && next !== undefined) state = next;
        return true;
      } catch (error) {
        if (stopOnFailure) throw error;
        const retryInMs = backoff(attempt);
        options.onError?.({ during: 'handle', error, attempt, retryInMs, event });
        if (!(await pause(retryInMs))) return false;
      }
    }
  }

  /** Handles the event when it is selected, then moves past it; false when stopped before its effect. */
  async function take(event: RecordedEvent): Promise<boolean> {
    if (selects(event)) {
      if (!(await handleUntilDone(event))) return false;
      unsavedHandled += 1;
    }
    passTo(event.position);
    return true;
  }

  /** Moves past one more event (or a run of passed-over ones) up to `to`, resolving the waiters it reached. */
  function passTo(to: Position): void {
    position = to;
    unsavedSeen += 1;
    for (const waiter of waiters) {
      if (waiter.position > position) continue;
      waiters.delete(waiter);
      waiter.resolve();
    }
  }

  async function saveIfDue(): Promise<void> {
    // Events it passes over also move the checkpoint now and then, so a restart does not rescan a long tail.
    if (unsavedHandled >= batchSize || unsavedSeen >= batchSize * 10) await save();
    else if (!options.saveWhenIdle) saveSoon();
  }

  /**
   * The log up to its end as it was, a page of the processor's own event types at a time, then past the
   * other events up to that end (when the reader can tell where it was); false when stopped.
   */
  async function catchUpInPages(): Promise<boolean> {
    if (!types) return true;
    for await (const page of pagesAfter(reader, position === 0n ? 'start' : position, types, { head: true })) {
      for (const event of page.events) {
        if (stopping || !(await take(event))) return false;
        await saveIfDue();
      }
      if (page.headBefore !== undefined && page.headBefore > position) {
        // Counted as one seen event: a long tail passed over is saved with the next checkpoint, not at once.
        passTo(page.headBefore);
        await saveIfDue();
      }
    }
    return !stopping;
  }

  /** One subscription from the current position; returns when it ends or the runner stops. */
  async function follow(current: EventSubscription): Promise<void> {
    const events = current[Symbol.asyncIterator]();
    let next = events.next();
    for (;;) {
      // Until the first time nothing is waiting, the runner is catching up; after that only a runner
      // that saves when idle asks, and only with something unsaved.
      const idleSave = options.saveWhenIdle === true && unsavedHandled > 0;
      if ((!caughtUpOnce || idleSave) && (await nothingReady(next))) {
        if (!caughtUpOnce) {
          caughtUpOnce = true;
          markCaughtUp();
        }
        if (idleSave) await save();
      }
      const result = await next;
      if (result.done || stopping) return;
      if (!(await take(result.value))) return;
      next = events.next();
      await saveIfDue();
    }
  }

  async function run(): Promise<void> {
    for (let failures = 0; !stopping;) {
      try {
        subscription = undefined;
        if (!(await catchUpInPages())) break;
        subscription = reader.subscribeToAll({ fromPosition: position === 0n ? 'start' : position });
        await follow(subscription);
        failures = 0;
      } catch (error) {
        if (stopOnFailure) throw error;
        failures += 1;
        options.onError?.({ during: 'subscription', error, attempt: failures, retryInMs: backoff(failures) });
      } finally {
        await subscription?.close().catch(() => undefined);
      }
      // A runner that stops on failure ends with its subscription; otherwise a subscription ends on its
      // own only when its store went away: try again, unhurried.
      if (stopOnFailure || !(await pause(backoff(Math.max(1, failures))))) break;
    }
    if (failure) throw failure.error;
    await save();
  }

  const untrack = trackLag(
    processor.name,
    lagOf(reader, () => position),
  );
  const done = run().finally(() => {
    finished = true;
    clearTimeout(saveTimer);
    untrack();
    const stopped = new StagecraftError('UNAVAILABLE', `${noun} ${processor.name} stopped at position ${position}`);
    neverCaughtUp(stopped); // no effect once caught up
    for (const waiter of waiters) waiter.reject(stopped);
    waiters.clear();
  });
  // Observed here so a failure never becomes an unhandled rejection; callers still see it through `done`.
  done.catch(() => undefined);

  return {
    name: processor.name,
    position: () => position,
    current: () => ({ position, state }),
    caughtUp,
    done,
    waitForPosition(target) {
      if (position >= target) return Promise.resolve();
      if (finished) return Promise.reject(new StagecraftError('UNAVAILABLE', `${noun} ${processor.name} is not running`));
      return new Promise<void>((resolve, reject) => waiters.add({ position: target, resolve, reject }));
    },
    async stop() {
      stopping = true;
      wakeFromPause();
      await subscription?.close();
      await done;
    },
  };
}

function selector(handles: Processor<unknown>['handles']): (event: RecordedEvent) => boolean {
  if (handles === undefined) return () => true;
  if (typeof handles === 'function') return handles;
  const types = new Set(handles);
  return (event) => types.has(event.type);
}

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => typeof (value as Promise<T> | undefined)?.then === 'function';

/** True when `next` is still pending after everything already queued has run. */
function nothingReady(next: Promise<unknown>): Promise<boolean> {
  return Promise.race([next.then(() => false), new Promise<boolean>((resolve) => setImmediate(() => resolve(true)))]);
}
