import type { CheckpointStore, EventReader, Position } from '../port';
import { pagesAfter } from './pages';
import type { Projection } from './projection';

async function fold<S>(
  store: EventReader,
  projection: Projection<S>,
  state: S,
  from: Position | 'start',
): Promise<{ state: S; position: Position | 'start' }> {
  const handles = new Set(projection.handles);
  let after = from;
  for await (const { events } of pagesAfter(store, from, projection.handles)) {
    for (const event of events) if (handles.has(event.type)) state = projection.evolve(state, event);
    after = events[events.length - 1].position;
  }
  return { state, position: after };
}

/** Folds the whole log from position zero; with `checkpoints`, saves the result as the projection's checkpoint. */
export async function rebuildProjection<S>(
  store: EventReader,
  projection: Projection<S>,
  options?: { checkpoints?: CheckpointStore },
): Promise<S> {
  const { state, position } = await fold(store, projection, projection.initialState(), 'start');
  if (options?.checkpoints) await options.checkpoints.save(projection.name, position === 'start' ? 0n : position, state);
  return state;
}

/** Brings a projection up to the end of the log from its saved checkpoint (not from zero), and saves it again. */
export async function catchUpProjection<S>(store: EventReader, checkpoints: CheckpointStore, projection: Projection<S>): Promise<S> {
  const saved = await checkpoints.load<S>(projection.name);
  const { state, position } = await fold(
    store,
    projection,
    saved ? saved.state : projection.initialState(),
    saved ? saved.position : 'start',
  );
  if (position !== 'start' && position !== saved?.position) await checkpoints.save(projection.name, position, state);
  return state;
}
