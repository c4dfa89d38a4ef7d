import { canonicalJson } from '@stagecraft/contracts';
import { CheckpointStore, EventReader, Position, Projection, catchUpProjection, rebuildProjection } from '@stagecraft/event-store';
import { readOnlyCheckpoints } from './read-only-checkpoints';
import { ViewDifference, viewDifferences } from './view-diff';

export type Verification =
  | { kind: 'same'; position: Position; bytes: number }
  | { kind: 'differs'; position: Position; differences: ViewDifference[] }
  | { kind: 'no-checkpoint'; position: Position }
  | { kind: 'moving'; live: Position; rebuilt: Position };

/** How often both sides are caught up again when appends keep landing between them. */
const ATTEMPTS = 5;

/**
 * The model rebuilt from zero into `scratch`, and its live view caught up from `live`'s checkpoint
 * (the tail only, saving nothing over it), then compared as canonical JSON once a further catch-up
 * moves neither: both have then folded every event of the model's types in the log. Their positions
 * may still differ, as a runner that follows the whole log also checkpoints at events it does not fold.
 */
export async function verifyView(
  store: EventReader,
  live: CheckpointStore,
  scratch: CheckpointStore,
  model: Projection<unknown>,
): Promise<Verification> {
  await rebuildProjection(store, model, { checkpoints: scratch });
  const tail = readOnlyCheckpoints(live);
  const load = async (checkpoints: CheckpointStore) => {
    const saved = await checkpoints.load(model.name);
    if (!saved) throw new Error(`the checkpoint of ${model.name} vanished while it was verified`);
    return saved;
  };
  if (!(await live.load(model.name))) return { kind: 'no-checkpoint', position: (await load(scratch)).position };
  let [current, rebuilt] = [await load(tail), await load(scratch)];
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    await catchUpProjection(store, tail, model);
    await catchUpProjection(store, scratch, model);
    const [before, rebuiltBefore] = [current.position, rebuilt.position];
    [current, rebuilt] = [await load(tail), await load(scratch)];
    if (current.position !== before || rebuilt.position !== rebuiltBefore) continue;
    const [a, b] = [canonicalJson(current.state), canonicalJson(rebuilt.state)];
    if (a === b) return { kind: 'same', position: rebuilt.position, bytes: Buffer.byteLength(b) };
    return { kind: 'differs', position: rebuilt.position, differences: viewDifferences(JSON.parse(a), JSON.parse(b)) };
  }
  return { kind: 'moving', live: current.position, rebuilt: rebuilt.position };
}
