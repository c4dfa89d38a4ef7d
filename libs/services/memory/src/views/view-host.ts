import { StagecraftError } from '@stagecraft/contracts';
import { startProjection } from '@stagecraft/event-store';
import type { EventStore, Position, ProjectionUpdate, RunningProjection } from '@stagecraft/event-store';
import type { ReadModel } from '@stagecraft/read-models';
import { watchFirstLull } from './first-lull';
import { PacedCheckpoints, pacedCheckpoints } from './paced-checkpoints';

export interface ViewHostOptions {
  /** At least this long between two checkpoint writes of one view (default 1,000 ms). */
  checkpointGapMs?: number;
  /** Handled events between two checkpoint saves the runner asks for while catching up (its `batchSize`). */
  batchSize?: number;
  /** At most this many waits for a position not reached yet, over all views (default 10,000). */
  maxWaits?: number;
  /** A view stopped by an error: its last state is still answered, and waits for later positions fail. */
  onFailure?: (name: string, error: unknown) => void;
  /** A checkpoint that could not be written; the view goes on, and the write is tried again later. */
  onCheckpointError?: (name: string, error: unknown) => void;
}

interface HostedView {
  running: RunningProjection<unknown>;
  checkpoints: PacedCheckpoints;
  caughtUp: Promise<void>;
  /** One wait per position asked for, shared by every request that asks for it. */
  waits: Map<Position, Promise<void>>;
}

const DEFAULT_MAX_WAITS = 10_000;

/** Rejects with `TIMEOUT` once `ms` passed; the work itself goes on. */
async function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StagecraftError('TIMEOUT', `${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Every read model kept current from its checkpoint by a projection runner (`startProjection`), and
 * read at a position: after the view has caught up with the log at start-up, or once it has folded
 * the position a caller needs.
 */
export class ViewHost {
  private readonly views = new Map<string, HostedView>();
  private waiting = 0;

  private constructor(private readonly options: ViewHostOptions) {}

  static async start(store: EventStore, models: readonly ReadModel<unknown>[], options: ViewHostOptions = {}): Promise<ViewHost> {
    const host = new ViewHost(options);
    try {
      for (const model of models) await host.add(store, model);
    } catch (error) {
      await host.stop();
      throw error;
    }
    return host;
  }

  private async add(store: EventStore, model: ReadModel<unknown>): Promise<void> {
    const { reader, caughtUp } = watchFirstLull(store);
    const checkpoints = pacedCheckpoints(store.checkpoints, this.options.checkpointGapMs ?? 1_000, undefined, (error) =>
      this.options.onCheckpointError?.(model.name, error),
    );
    const running = await startProjection(reader, checkpoints, model, { batchSize: this.options.batchSize });
    running.done.catch((error: unknown) => this.options.onFailure?.(model.name, error));
    // A runner that ends before its first lull never catches up: a read waiting for that gets its error.
    const caughtUpOrEnded = Promise.race([caughtUp, running.done.then(() => Promise.reject(stopped(model.name)))]);
    caughtUpOrEnded.catch(() => undefined);
    this.views.set(model.name, { running, checkpoints, caughtUp: caughtUpOrEnded, waits: new Map() });
  }

  /** The model's view and the position it reflects: at least `minPosition`, or caught up with the log when none is given. */
  async read<S>(model: ReadModel<S>, minPosition: Position | undefined, timeoutMs: number): Promise<ProjectionUpdate<S>> {
    const view = this.views.get(model.name);
    if (!view) throw new StagecraftError('UNAVAILABLE', `read model ${model.name} is not running`);
    if (minPosition === undefined) await within(timeoutMs, view.caughtUp, `${model.name} did not catch up with the log`);
    else if (view.running.current().position < minPosition)
      await within(timeoutMs, this.reached(view, minPosition), `${model.name} did not reach position ${minPosition}`);
    return view.running.current() as ProjectionUpdate<S>;
  }

  private reached(view: HostedView, position: Position): Promise<void> {
    const known = view.waits.get(position);
    if (known) return known;
    // A wait outlives a request that timed out until its position comes; bounded, so that positions
    // that never come cannot pile up.
    if (this.waiting >= (this.options.maxWaits ?? DEFAULT_MAX_WAITS))
      throw new StagecraftError('UNAVAILABLE', `too many reads are waiting for positions not reached yet (${this.waiting})`);
    this.waiting += 1;
    const wait = view.running.waitForPosition(position).finally(() => {
      this.waiting -= 1;
      view.waits.delete(position);
    });
    wait.catch(() => undefined);
    view.waits.set(position, wait);
    return wait;
  }

  /** Stops every runner (each saves its checkpoint) and writes what a paced save left unwritten. */
  async stop(): Promise<void> {
    const views = [...this.views.entries()];
    this.views.clear();
    await Promise.all(
      views.map(async ([, view]) => {
        await view.running.stop().catch(() => undefined);
        // A runner that failed may have stopped halfway through an event: its view is not saved.
        const failed = await view.running.done.then(
          () => false,
          () => true,
        );
        if (failed) return;
        const { position, state } = view.running.current();
        await view.checkpoints.flush(position, state);
      }),
    );
  }
}

const stopped = (name: string) => new StagecraftError('UNAVAILABLE', `read model ${name} stopped before it caught up with the log`);
