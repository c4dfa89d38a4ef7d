import { canonicalJson } from '@stagecraft/contracts';
import { CheckpointStore, EventReader, Position, Projection, catchUpProjection, createMemoryCheckpointStore, rebuildProjection } from '@stagecraft/event-store';
import { ViewDifference, viewDifferences } from './view-diff';

export type Verification =
  | { kind: 'same'; position: Position; bytes: number }
  | { kind: 'differs'; position: Position; differences: ViewDifference[] }
  | { kind: 'no-checkpoint'; position: Position }
  | { kind: 'moving'; live: Position; rebuilt: Position };

/** How often both sides are caught up again when appends keep landing between them. */
const ATTEMPTS = 5;

/** Reads `live` until it has saved something itself, and saves only into itself: the live checkpoint is never written. */
function readOnlyOver(live: CheckpointStore): CheckpointStore {
  const own = createMemoryCheckpointStore();
  return {
    load: async <S>(name: string) => (await own.load<S>(name)) ?? live.load<S>(name),
    save: (name, position, state) => own.save(name, position, state),
  };
}

/**
 * The model rebuilt from zero into `scratch`, and its live view caught up from `live`'s checkpoint
 * (the tail only), both at the same log position; then compared as canonical JSON.
 */
export async function verifyView(
  store: EventReader,
  live: CheckpointStore,
  scratch: CheckpointStore,
  model: Projection<unknown>,
): Promise<Verification> {
  await rebuildProjection(store, model, { checkpoints: scratch });
  const rebuiltAt = async () => (await scratch.load(model.name))?.position ?? 0n;
  if (!(await live.load(model.name))) return { kind: 'no-checkpoint', position: await rebuiltAt() };
  const tail = readOnlyOver(live);
  for (let attempt = 1; ; attempt += 1) {
    await catchUpProjection(store, tail, model);
    await catchUpProjection(store, scratch, model);
    const current = await tail.load(model.name);
    const rebuilt = await scratch.load(model.name);
    if (!current || !rebuilt) throw new Error(`checkpoint of ${model.name} vanished while verifying`);
    if (current.position === rebuilt.position) {
      const [a, b] = [canonicalJson(current.state), canonicalJson(rebuilt.state)];
      if (a === b) return { kind: 'same', position: rebuilt.position, bytes: Buffer.byteLength(b) };
      return { kind: 'differs', position: rebuilt.position, differences: viewDifferences(JSON.parse(a), JSON.parse(b)) };
    }
    if (attempt === ATTEMPTS) return { kind: 'moving', live: current.position, rebuilt: rebuilt.position };
  }
}
