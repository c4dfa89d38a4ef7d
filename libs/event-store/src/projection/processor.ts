import type { Position, RecordedEvent } from '../port';

/**
 * Something that follows the log from its checkpoint: a side effect per event (publish, append
 * elsewhere), or a fold whose effect is its own state (a projection, see `start-projection.ts`). The
 * runner saves a checkpoint (position and state together) only after the effect, so a crash repeats
 * the effects since the last checkpoint and never loses one: an effect on the world must be idempotent.
 */
export interface Processor<S = null> {
  name: string;
  /** The event types it acts on, or a test; every other event only moves the checkpoint. Default: every event. */
  handles?: readonly string[] | ((event: RecordedEvent) => boolean);
  /** The effect of one event; with `initialState`, what it returns (unless undefined) is the state saved with the next checkpoint. */
  handle(event: RecordedEvent, state: S): S | void | Promise<S | void>;
  /** The state when there is no checkpoint yet; without it the state is null and only the position is kept. */
  initialState?(): S;
}

/** Where a runner is in the log and what it folded up to there. */
export interface Checkpointed<S> {
  position: Position;
  state: S;
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

export interface ProcessorOptions<S = null> {
  /** Handled events between two checkpoint saves (default 100). */
  batchSize?: number;
  /**
   * How long after an event its checkpoint is saved at the latest (default 250 ms). A save is a write
   * of its own: saving after every commit would double a run's writes, and a checkpoint that is
   * behind only costs repeats (which every effect here tolerates) after a crash.
   */
  saveWithinMs?: number;
  /**
   * Save whenever the log has nothing more ready, instead of within `saveWithinMs`: the save then runs
   * inside the loop, so the state cannot change while it is written (a projection's; its saves are paced
   * by its checkpoint store).
   */
  saveWhenIdle?: boolean;
  /**
   * `retry` (default): a failing `handle` or subscription is retried with backoff, a failed save is
   * reported and tried again later; the runner never stops on its own. `stop`: the first failure of
   * any kind ends the runner and `done` rejects with it (a projection's fold is pure: it would only
   * fail again).
   */
  onFailure?: 'retry' | 'stop';
  /** Backoff of a failing `handle` or subscription: doubles from `initialMs` (100) up to `maxMs` (30 000). */
  retry?: { initialMs?: number; maxMs?: number };
  onError?: (failure: ProcessorFailure) => void;
  /** Called after each saved checkpoint. */
  onSaved?: (saved: Checkpointed<S>) => void;
  /** What it is called in the errors its waiters get (default `processor`). */
  noun?: string;
}

export interface RunningProcessor<S = null> {
  readonly name: string;
  /** The position of the last event handled (or passed over); the saved checkpoint may be behind it. */
  position(): Position;
  /** Position and state as of the last event handled or passed over. */
  current(): Checkpointed<S>;
  /** Resolves once every event up to `position` has been handled. */
  waitForPosition(position: Position): Promise<void>;
  /**
   * Resolves the first time everything the log had ready is handled: for the sqlite and memory
   * stores, the head of the log; for KurrentDB's pushed subscription, its first lull. Rejects if stopped before.
   */
  readonly caughtUp: Promise<void>;
  /** Lets the current `handle` finish, stops retrying, saves the checkpoint of what was handled. */
  stop(): Promise<void>;
  /** Settles once the runner has stopped: resolves after `stop()`, rejects with the failure that stopped it (`onFailure: 'stop'`). */
  readonly done: Promise<void>;
}
