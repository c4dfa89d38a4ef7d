import type { CheckpointStore, EventReader, Position } from '../port';
import type { Projection } from './projection';

const pageSize = 1000;

/** Folds the whole log from position zero; with `checkpoints`, saves the result as the projection's checkpoint. */
export async function rebuildProjection<S>(store: EventReader, projection: Projection<S>, options?: { checkpoints?: CheckpointStore }): Promise<S> {
  const handles = new Set(projection.handles);
  let state = projection.initialState();
  let after: Position | 'start' = 'start';
  for (;;) {
    const page = await store.readAll({ fromPosition: after, maxCount: pageSize });
    for (const event of page) if (handles.has(event.type)) state = projection.evolve(state, event);
    if (page.length > 0) after = page[page.length - 1].position;
    if (page.length < pageSize) break;
  }
  if (options?.checkpoints) await options.checkpoints.save(projection.name, after === 'start' ? 0n : after, state);
  return state;
}
