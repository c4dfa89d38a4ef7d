import { performance } from 'node:perf_hooks';
import { activeRunsProjection } from '@stagecraft/conversation-service';
import { Projection, openEventStore, rebuildProjection } from '@stagecraft/event-store';
import { formatTable } from '../table';

/** Every read model that is kept as a checkpointed projection. */
const PROJECTIONS: Projection<unknown>[] = [activeRunsProjection as Projection<unknown>];

/** Rebuilds every read model from position zero and saves it with its checkpoint. */
export async function replay(storeUrl: string): Promise<void> {
  const store = openEventStore(storeUrl);
  try {
    const rows: string[][] = [];
    for (const projection of PROJECTIONS) {
      const started = performance.now();
      const state = await rebuildProjection(store, projection, { checkpoints: store.checkpoints });
      const saved = await store.checkpoints.load(projection.name);
      rows.push([
        projection.name,
        String(saved?.position ?? 0n),
        `${JSON.stringify(state).length} bytes`,
        `${(performance.now() - started).toFixed(1)} ms`,
      ]);
    }
    process.stdout.write(`${formatTable(['PROJECTION', 'POSITION', 'READ MODEL', 'TIME'], rows)}\n`);
  } finally {
    await store.close();
  }
}
