import type { Position, RecordedEvent } from '../port';

/** A pure read model: the same events in the same order always give the same state. State must be JSON. */
export interface Projection<S> {
  name: string;
  handles: readonly string[];
  initialState(): S;
  evolve(state: S, event: RecordedEvent): S;
}

export interface ProjectionUpdate<S> {
  position: Position;
  state: S;
}

export interface ProjectionOptions<S> {
  /** Handled events folded between two checkpoint saves while catching up (default 100). */
  batchSize?: number;
  /** Called after each saved checkpoint. */
  onUpdate?: (update: ProjectionUpdate<S>) => void;
}

export interface RunningProjection<S> {
  readonly name: string;
  /** Position and state as of the last event seen; may be ahead of the saved checkpoint. */
  current(): ProjectionUpdate<S>;
  /** Resolves once every event up to `position` has been seen. */
  waitForPosition(position: Position): Promise<void>;
  /** Closes the subscription and saves a final checkpoint. */
  stop(): Promise<void>;
  /** Settles when the runner ends; rejects with the error that stopped it. */
  readonly done: Promise<void>;
}
