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

/**
 * Folds several projections from position zero in one read of the log: the union of their types, each
 * event parsed once and handed to every projection that handles it. Each is saved (with `checkpoints`)
 * at the last event of its own types, where `rebuildProjection` would have left it, so the states and
 * positions are those of rebuilding them one after another, for the cost of about one.
 */
export async function rebuildProjections(
  store: EventReader,
  projections: readonly Projection<unknown>[],
  options?: { checkpoints?: CheckpointStore },
): Promise<unknown[]> {
  const byType = new Map<string, number[]>();
  projections.forEach((projection, i) => {
    for (const type of new Set(projection.handles)) byType.set(type, [...(byType.get(type) ?? []), i]);
  });
  const states = projections.map((projection) => projection.initialState());
  const positions: (Position | undefined)[] = projections.map(() => undefined);
  for await (const { events } of pagesAfter(store, 'start', [...byType.keys()])) {
    for (const event of events) {
      const targets = byType.get(event.type);
      if (!targets) continue;
      for (const i of targets) {
        states[i] = projections[i].evolve(states[i], event);
        positions[i] = event.position;
      }
    }
  }
  if (options?.checkpoints)
    for (const [i, projection] of projections.entries()) await options.checkpoints.save(projection.name, positions[i] ?? 0n, states[i]);
  return states;
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
