import { Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { toErrorReply } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { READ_MODELS } from '@stagecraft/read-models';
import { EVENT_STORE, SHELL_CONFIG, ServiceDefinition } from '@stagecraft/service-shell';
import type { ShellPorts } from '@stagecraft/service-shell';
import { MemoryConfig, memoryConfigFromEnv } from './config';
import { MemoryController } from './memory.controller';
import { RunsController } from './runs.controller';
import { MEMORY_CONFIG, MEMORY_VIEWS } from './tokens';
import { ViewsController } from './views.controller';
import { MemoryViews } from './views/memory-views';
import type { ViewHostOptions } from './views/view-host';

export { memoryConfigFromEnv, DEFAULT_STUCK_AFTER_MS, type MemoryConfig } from './config';
export { ViewHost, type ViewHostOptions } from './views/view-host';

export interface MemoryOptions {
  /** How the read models are run and checkpointed (tests shorten the checkpoint gap). */
  views?: ViewHostOptions;
}

/** Starts every read model from its checkpoint with the service, and stops them (saving each) with it. */
class MemoryLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(private readonly views: MemoryViews) {}

  onApplicationBootstrap(): Promise<void> {
    return this.views.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.views.stop();
  }
}

export function memoryModule(options: MemoryOptions = {}): new () => unknown {
  @Module({
    controllers: [MemoryController, ViewsController, RunsController],
    providers: [
      { provide: MEMORY_CONFIG, inject: [SHELL_CONFIG], useFactory: (shell: ShellPorts): MemoryConfig => memoryConfigFromEnv(shell.env) },
      {
        provide: MEMORY_VIEWS,
        inject: [SHELL_CONFIG, EVENT_STORE, MEMORY_CONFIG],
        useFactory: (shell: ShellPorts, store: EventStore, config: MemoryConfig) =>
          new MemoryViews(store, READ_MODELS, config.waitMs, {
            ...options.views,
            onFailure: (name, error) => {
              shell.logger.error({ readModel: name, err: toErrorReply(error).message }, 'read model stopped');
              options.views?.onFailure?.(name, error);
            },
            onCheckpointError: (name, error) => {
              shell.logger.warn(
                { readModel: name, err: toErrorReply(error).message },
                'read model checkpoint not saved; trying again later',
              );
              options.views?.onCheckpointError?.(name, error);
            },
          }),
      },
      { provide: MemoryLifecycle, inject: [MEMORY_VIEWS], useFactory: (views: MemoryViews) => new MemoryLifecycle(views) },
    ],
  })
  class MemoryModule {}
  return MemoryModule;
}

export function memoryServiceWith(options: MemoryOptions): ServiceDefinition {
  return { name: 'memory', module: memoryModule(options), usesStore: true };
}

export const memoryService: ServiceDefinition = memoryServiceWith({});
