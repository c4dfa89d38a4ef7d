import type { Checkpointed, RunningProcessor } from './processor';

/** A pure read model (one type for the store and libs/read-models, kept in the contracts). State must be JSON. */
export type { Projection } from '@stagecraft/contracts';

/** A projection's position and the state folded up to it. */
export type ProjectionUpdate<S> = Checkpointed<S>;

export interface ProjectionOptions<S> {
  /** Handled events folded between two checkpoint saves while catching up (default 100). */
  batchSize?: number;
  /** Called after each saved checkpoint. */
  onUpdate?: (update: ProjectionUpdate<S>) => void;
}

/**
 * A projection kept by the one runner: `current()` is the position and state as of the last event seen
 * (it may be ahead of the saved checkpoint); `stop()` saves a final checkpoint; `done` rejects with the
 * error that stopped it.
 */
export type RunningProjection<S> = RunningProcessor<S>;
