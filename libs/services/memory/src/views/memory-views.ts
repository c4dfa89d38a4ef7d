import { StagecraftError } from '@stagecraft/contracts';
import type { EventStore, ProjectionUpdate } from '@stagecraft/event-store';
import type { ReadModel } from '@stagecraft/read-models';
import { ViewHost, ViewHostOptions } from './view-host';

/**
 * The memory service's views: started with the service, stopped with it, and read at a position
 * given as the decimal string a request carries, within the service's wait.
 */
export class MemoryViews {
  private host: Promise<ViewHost> | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly models: readonly ReadModel<unknown>[],
    private readonly waitMs: number,
    private readonly options: ViewHostOptions,
  ) {}

  async start(): Promise<void> {
    this.host ??= ViewHost.start(this.store, this.models, this.options);
    await this.host;
  }

  async read<S>(model: ReadModel<S>, minPosition: string | undefined): Promise<ProjectionUpdate<S>> {
    if (!this.host) throw new StagecraftError('UNAVAILABLE', 'the memory service has not started its read models');
    const host = await this.host;
    return host.read(model, minPosition === undefined ? undefined : BigInt(minPosition), this.waitMs);
  }

  async stop(): Promise<void> {
    const host = this.host;
    this.host = null;
    await (await host?.catch(() => null))?.stop();
  }
}
