import { Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { toErrorReply } from '@stagecraft/contracts';
import { startProcessor } from '@stagecraft/event-store';
import type { EventStore, RunningProcessor } from '@stagecraft/event-store';
import { READ_MODELS } from '@stagecraft/read-models';
import { CLOCK, EVENT_STORE, NEW_ID, SHELL_CONFIG, ServiceDefinition } from '@stagecraft/service-shell';
import type { Clock, NewId, ShellPorts } from '@stagecraft/service-shell';
import { embedderFromEnv } from '@stagecraft/model-gateway';
import { DEFAULT_RUN_OUTCOME_LIMIT, MemoryBook } from './memory-book';
import { runOutcomes } from './run-outcomes';
import { MemoryConfig, memoryConfigFromEnv } from './config';
import { MemoryController } from './memory.controller';
import { RunsController } from './runs.controller';
import { MEMORY_BOOK, MEMORY_CONFIG, MEMORY_VIEWS } from './tokens';
import { ViewsController } from './views.controller';
import { MemoryViews } from './views/memory-views';
import type { ViewHostOptions } from './views/view-host';

export { memoryConfigFromEnv, DEFAULT_STUCK_AFTER_MS, type MemoryConfig } from './config';
export { ViewHost, type ViewHostOptions } from './views/view-host';
export { DEFAULT_RUN_OUTCOME_LIMIT, MemoryBook, type Embedder } from './memory-book';
export { RUN_OUTCOMES, runOutcomeContent, runOutcomeMemoryId, runOutcomes } from './run-outcomes';
export { planReflection, reflectionText } from './reflect';

export interface MemoryOptions {
  /** How the read models are run and checkpointed (tests shorten the checkpoint gap). */
  views?: ViewHostOptions;
  /** Run outcomes kept per scope (DEFAULT_RUN_OUTCOME_LIMIT by default). */
  runOutcomeLimit?: number;
}

/**
 * Starts every read model from its checkpoint with the service, then the run-outcome write policy
 * (which reads the memories view), and stops them (saving each) with it.
 */
class MemoryLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private processor: RunningProcessor | null = null;

  constructor(
    private readonly views: MemoryViews,
    private readonly store: EventStore,
    private readonly book: MemoryBook,
    private readonly logger: ShellPorts['logger'],
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.views.start();
    this.processor = await startProcessor(this.store, this.store.checkpoints, runOutcomes(this.store, this.book), {
      onError: ({ during, error, attempt, event }) =>
        this.logger.error(
          { processor: 'run-outcomes', during, attempt, eventId: event?.id, err: toErrorReply(error).message },
          'run-outcome memory failed; trying again',
        ),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.processor?.stop();
    this.processor = null;
    await this.views.stop();
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
      {
        provide: MEMORY_BOOK,
        inject: [SHELL_CONFIG, EVENT_STORE, MEMORY_VIEWS, CLOCK, NEW_ID],
        useFactory: (shell: ShellPorts, store: EventStore, views: MemoryViews, clock: Clock, newId: NewId) =>
          new MemoryBook({
            store,
            views,
            clock,
            newId,
            runOutcomeLimit: options.runOutcomeLimit ?? DEFAULT_RUN_OUTCOME_LIMIT,
            embedder: embedderFromEnv(shell.env),
            onEmbeddingError: (error: unknown) =>
              shell.logger.warn({ err: toErrorReply(error).message }, 'embeddings failed; recall ranked lexically'),
          }),
      },
      {
        provide: MemoryLifecycle,
        inject: [MEMORY_VIEWS, EVENT_STORE, MEMORY_BOOK, SHELL_CONFIG],
        useFactory: (views: MemoryViews, store: EventStore, book: MemoryBook, shell: ShellPorts) =>
          new MemoryLifecycle(views, store, book, shell.logger),
      },
    ],
  })
  class MemoryModule {}
  return MemoryModule;
}

export function memoryServiceWith(options: MemoryOptions): ServiceDefinition {
  return { name: 'memory', module: memoryModule(options), usesStore: true, touchesProjects: true };
}

export const memoryService: ServiceDefinition = memoryServiceWith({});
