import type { CheckpointStore, EventReader } from '../port';
import type { Processor } from './processor';
import type { Projection, ProjectionOptions, RunningProjection } from './projection';
import { startProcessor } from './start-processor';

/** A projection as a processor: its effect is its own state, which each checkpoint saves with the position. */
export const processorOf = <S>(projection: Projection<S>): Processor<S> => ({
  name: projection.name,
  handles: projection.handles,
  initialState: () => projection.initialState(),
  handle: (event, state) => projection.evolve(state, event),
});

/**
 * Resumes from the saved checkpoint and folds every later event, on the one runner. A checkpoint
 * (position and state together) is saved every `batchSize` handled events and whenever the log has
 * nothing more ready, so a restart neither misses nor repeats an event. The fold is pure, so an event
 * it cannot fold, like a failed subscription or save, stops it: `done` rejects with that error.
 */
export function startProjection<S>(
  store: EventReader,
  checkpoints: CheckpointStore,
  projection: Projection<S>,
  options: ProjectionOptions<S> = {},
): Promise<RunningProjection<S>> {
  return startProcessor(store, checkpoints, processorOf(projection), {
    batchSize: options.batchSize,
    onSaved: options.onUpdate,
    saveWhenIdle: true,
    onFailure: 'stop',
    noun: 'projection',
  });
}
