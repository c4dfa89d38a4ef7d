import { performance } from 'node:perf_hooks';
import { StagecraftError, canonicalJson } from '@stagecraft/contracts';
import { activeRunsProjection } from '@stagecraft/conversation-service';
import {
  CheckpointStore,
  EventReader,
  Projection,
  createMemoryCheckpointStore,
  describeChainBreak,
  describeChainReport,
  openEventStore,
  rebuildProjections,
  verifyStoreChain,
} from '@stagecraft/event-store';
import { READ_MODELS } from '@stagecraft/read-models';
import { formatTable } from '../table';
import { verifyView } from './verify-view';

/** Every read model kept as a checkpointed projection: the conversation service's, then the memory service's. */
export function readModels(): Projection<unknown>[] {
  return [activeRunsProjection as Projection<unknown>, ...READ_MODELS];
}

/** The one model `name` asks for, or all of them; an unknown name is a usage error that lists the known ones. */
export function selectReadModels(name: string | undefined): Projection<unknown>[] {
  const all = readModels();
  if (name === undefined) return all;
  const chosen = all.filter((m) => m.name === name);
  if (chosen.length > 0) return chosen;
  const known = all.map((m) => m.name).join(', ');
  throw new StagecraftError('VALIDATION', `unknown read model '${name}'`, [{ path: ['projection'], message: `known: ${known}` }]);
}

/** The view's size as `--verify` compares it: canonical JSON, in UTF-8 bytes. */
export const viewBytes = (state: unknown): number => Buffer.byteLength(canonicalJson(state));

/** The projection with a count of the events it was handed, for the report. */
function counted<S>(projection: Projection<S>): { projection: Projection<S>; folded(): number } {
  let folded = 0;
  return {
    projection: { ...projection, evolve: (state, event) => ((folded += 1), projection.evolve(state, event)) },
    folded: () => folded,
  };
}

export interface RebuiltView {
  name: string;
  position: bigint;
  bytes: number;
  folded: number;
}

/**
 * Folds every model from position zero in one read of the log (each event parsed once) and saves each as
 * its checkpoint in `checkpoints`. The time is the pass's, shared by every model it rebuilt.
 */
export async function rebuildViews(
  store: EventReader,
  checkpoints: CheckpointStore,
  models: Projection<unknown>[],
): Promise<{ views: RebuiltView[]; ms: number }> {
  const started = performance.now();
  const counters = models.map(counted);
  const states = await rebuildProjections(
    store,
    counters.map((c) => c.projection),
    { checkpoints },
  );
  const ms = performance.now() - started;
  const views: RebuiltView[] = [];
  for (const [i, model] of models.entries()) {
    const saved = await checkpoints.load(model.name);
    views.push({ name: model.name, position: saved?.position ?? 0n, bytes: viewBytes(states[i]), folded: counters[i].folded() });
  }
  return { views, ms };
}

/** `stagecraft replay`: rebuilds every read model (or one) from position zero and saves it as the checkpoint the services resume from. */
export async function replay(storeUrl: string, only?: string): Promise<void> {
  const models = selectReadModels(only);
  const store = openEventStore(storeUrl);
  try {
    const { views, ms } = await rebuildViews(store, store.checkpoints, models);
    const rows = views.map((v) => [v.name, String(v.position), `${v.bytes} bytes`, String(v.folded)]);
    process.stdout.write(`${formatTable(['READ MODEL', 'POSITION', 'SIZE', 'EVENTS FOLDED'], rows)}\n`);
    process.stdout.write(
      `rebuilt ${views.length} read model${views.length === 1 ? '' : 's'} in one read of the log: ${ms.toFixed(1)} ms\n`,
    );
  } finally {
    await store.close();
  }
}

/**
 * `stagecraft replay --verify`: each model rebuilt from zero into a scratch checkpoint store, the
 * live view brought to the same position from its own checkpoint (its saved checkpoint untouched),
 * and the two compared as canonical JSON. True when none differs; a view with no checkpoint yet
 * has nothing to compare, which fails only when `only` names it.
 */
export async function verifyReplay(storeUrl: string, only?: string): Promise<boolean> {
  const models = selectReadModels(only);
  const store = openEventStore(storeUrl);
  try {
    const scratch = createMemoryCheckpointStore();
    const rows: string[][] = [];
    const details: string[] = [];
    let ok = true;
    for (const model of models) {
      const result = await verifyView(store, store.checkpoints, scratch, model);
      switch (result.kind) {
        case 'same':
          rows.push([model.name, String(result.position), `${result.bytes} bytes`, 'same']);
          break;
        case 'no-checkpoint':
          rows.push([model.name, String(result.position), '', 'no checkpoint yet']);
          if (only !== undefined) ok = false;
          break;
        case 'differs':
          rows.push([model.name, String(result.position), '', 'DIFFERS']);
          details.push(`${model.name}: the live view differs from the rebuilt one at position ${result.position}`);
          for (const d of result.differences) details.push(`  ${d.path}: live ${d.live ?? '(absent)'}, rebuilt ${d.rebuilt ?? '(absent)'}`);
          ok = false;
          break;
        case 'moving':
          rows.push([model.name, `${result.live} / ${result.rebuilt}`, '', 'log kept moving']);
          details.push(`${model.name}: the log kept growing; live at ${result.live}, rebuilt at ${result.rebuilt}, not compared`);
          ok = false;
          break;
        default: {
          const unknown: never = result;
          throw new Error(`unknown verification result ${JSON.stringify(unknown)}`);
        }
      }
    }
    process.stdout.write(`${formatTable(['READ MODEL', 'POSITION', 'SIZE', 'RESULT'], rows)}\n`);
    for (const line of details) process.stdout.write(`${line}\n`);
    // A view rebuilt from an edited log agrees with itself: the chain is what tells the log was edited.
    const chain = await verifyStoreChain(store);
    for (const b of chain.breaks) process.stdout.write(`${describeChainBreak(b)}\n`);
    process.stdout.write(`${describeChainReport(chain)}\n`);
    return ok && chain.breaks.length === 0;
  } finally {
    await store.close();
  }
}
