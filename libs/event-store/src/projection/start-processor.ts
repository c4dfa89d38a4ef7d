import { StagecraftError } from '@stagecraft/contracts';
import { trackLag } from '@stagecraft/telemetry';
import type { CheckpointStore, EventReader, EventSubscription, Position, RecordedEvent } from '../port';
import { lagOf } from './lag';

/**
 * A projection whose "view" is a side effect (publish, append elsewhere). The runner only saves a
 * checkpoint after the effect, so a crash repeats the effects since the last checkpoint and never
 * loses one: `handle` must be idempotent.
 */
export interface Processor {
  name: string;
  /** The event types it acts on, or a test; every other event only moves the checkpoint. Default: every event. */
  handles?: readonly string[] | ((event: RecordedEvent) => boolean);
  handle(event: RecordedEvent): Promise<void>;
}

export interface ProcessorFailure {
  /** `handle`: the event is tried again; `checkpoint`: saved later; `subscription`: resubscribed from the last handled event. */
  during: 'handle' | 'checkpoint' | 'subscription';
  error: unknown;
  /** Consecutive failures of this kind, from 1. */
  attempt: number;
  retryInMs: number;
  event?: RecordedEvent;
}

export interface ProcessorOptions {
  /** Handled events between two checkpoint saves (default 100). */
  batchSize?: number;
  /**
   * How long after an event its checkpoint is saved at the latest (default 250 ms). A save is a write
   * of its own: saving after every commit would double a run's writes, and a checkpoint that is
   * behind only costs repeats (which every effect here tolerates) after a crash.
   */
  saveWithinMs?: number;
  /** Backoff of a failing `handle` or subscription: doubles from `initialMs` (100) up to `maxMs` (30 000). */
  retry?: { initialMs?: number; maxMs?: number };
  onError?: (failure: ProcessorFailure) => void;
}

export interface RunningProcessor {
  readonly name: string;
  /** The position of the last event handled (or passed over); the saved checkpoint may be behind it. */
  position(): Position;
  /** Resolves once every event up to `position` has been handled. */
  waitForPosition(position: Position): Promise<void>;
  /**
   * Resolves the first time everything the subscription had ready is handled: for the sqlite and memory
   * stores, the head of the log; for KurrentDB's pushed subscription, its first lull. Rejects if stopped before.
   */
  readonly caughtUp: Promise<void>;
  /** Lets the current `handle` finish, stops retrying, saves the checkpoint of what was handled. */
  stop(): Promise<void>;
  /** Resolves once the runner has stopped; it does not stop on its own. */
  readonly done: Promise<void>;
}

interface PositionWaiter {
  position: Position;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** Resumes right after the saved checkpoint and awaits `handle` for each later event, in global order. */
export async function startProcessor(
  reader: EventReader,
  checkpoints: CheckpointStore,
  processor: Processor,
  options: ProcessorOptions = {},
): Promise<RunningProcessor> {
  const batchSize = Math.max(1, options.batchSize ?? 100);
  const saveWithinMs = Math.max(0, options.saveWithinMs ?? 250);
  const backoff = (attempt: number) => Math.min(options.retry?.maxMs ?? 30_000, (options.retry?.initialMs ?? 100) * 2 ** (attempt - 1));
  const selects = selector(processor.handles);
  const saved = await checkpoints.load<unknown>(processor.name);
  let position: Position = saved ? saved.position : 0n;
  let savedPosition = position;
  let unsavedHandled = 0;
  let unsavedSeen = 0;
  let checkpointFailures = 0;
  let caughtUpOnce = false;
  let stopping = false;
  let finished = false;
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
    saveTimer = setTimeout(() => void save(), saveWithinMs);
    // A save still due never keeps a process alive: stopping saves, and a crash only costs repeats.
    saveTimer.unref();
  }

  async function saveNow(): Promise<void> {
    if (position === savedPosition) return;
    try {
      await checkpoints.save(processor.name, position, null);
      savedPosition = position;
      unsavedHandled = 0;
      unsavedSeen = 0;
      checkpointFailures = 0;
    } catch (error) {
      // Only costs repeats after a restart; the next save tries again.
      checkpointFailures += 1;
      options.onError?.({ during: 'checkpoint', error, attempt: checkpointFailures, retryInMs: 0 });
    }
  }

  /** False when stopped before `handle` succeeded: the event stays unhandled, and the checkpoint before it. */
  async function handleUntilDone(event: RecordedEvent): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await processor.handle(event);
        return true;
      } catch (error) {
        const retryInMs = backoff(attempt);
        options.onError?.({ during: 'handle', error, attempt, retryInMs, event });
        if (!(await pause(retryInMs))) return false;
      }
    }
  }

  function passed(event: RecordedEvent): void {
    position = event.position;
    unsavedSeen += 1;
    for (const waiter of waiters) {
      if (waiter.position > position) continue;
      waiters.delete(waiter);
      waiter.resolve();
    }
  }

  /** One subscription from the current position; returns when it ends or the runner stops. */
  async function follow(current: EventSubscription): Promise<void> {
    const events = current[Symbol.asyncIterator]();
    let next = events.next();
    for (;;) {
      // Until the first time nothing is waiting, the runner is catching up; after that, nobody asks.
      if (!caughtUpOnce && (await nothingReady(next))) {
        caughtUpOnce = true;
        markCaughtUp();
      }
      const result = await next;
      if (result.done || stopping) return;
      if (selects(result.value)) {
        if (!(await handleUntilDone(result.value))) return;
        unsavedHandled += 1;
      }
      passed(result.value);
      next = events.next();
      // Events it passes over also move the checkpoint now and then, so a restart does not rescan a long tail.
      if (unsavedHandled >= batchSize || unsavedSeen >= batchSize * 10) await save();
      else saveSoon();
    }
  }

  async function run(): Promise<void> {
    for (let failures = 0; !stopping;) {
      try {
        subscription = reader.subscribeToAll({ fromPosition: position === 0n ? 'start' : position });
        await follow(subscription);
        failures = 0;
      } catch (error) {
        failures += 1;
        options.onError?.({ during: 'subscription', error, attempt: failures, retryInMs: backoff(failures) });
      } finally {
        await subscription?.close().catch(() => undefined);
      }
      // A subscription ends on its own only when its store went away: try again, unhurried.
      if (!(await pause(backoff(Math.max(1, failures))))) break;
    }
    await save();
  }

  const untrack = trackLag(
    processor.name,
    lagOf(reader, () => position),
  );
  const done = run().finally(() => {
    finished = true;
    untrack();
    const stopped = new StagecraftError('UNAVAILABLE', `processor ${processor.name} stopped at position ${position}`);
    neverCaughtUp(stopped); // no effect once caught up
    for (const waiter of waiters) waiter.reject(stopped);
    waiters.clear();
  });
  // Observed here so a failure never becomes an unhandled rejection; callers still see it through `done`.
  done.catch(() => undefined);

  return {
    name: processor.name,
    position: () => position,
    caughtUp,
    done,
    waitForPosition(target) {
      if (position >= target) return Promise.resolve();
      if (finished) return Promise.reject(new StagecraftError('UNAVAILABLE', `processor ${processor.name} is not running`));
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

function selector(handles: Processor['handles']): (event: RecordedEvent) => boolean {
  if (handles === undefined) return () => true;
  if (typeof handles === 'function') return handles;
  const types = new Set(handles);
  return (event) => types.has(event.type);
}

/** True when `next` is still pending after everything already queued has run. */
function nothingReady(next: Promise<unknown>): Promise<boolean> {
  return Promise.race([next.then(() => false), new Promise<boolean>((resolve) => setImmediate(() => resolve(true)))]);
}
