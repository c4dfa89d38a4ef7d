import { toErrorReply } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { embedderFromEnv } from '@stagecraft/model-gateway';
import { READ_MODELS } from '@stagecraft/read-models';
import type { Clock, ShellPorts } from '@stagecraft/service-shell';
import { MemoryConfig, memoryConfigFromEnv } from './config';
import { DEFAULT_RUN_OUTCOME_LIMIT, MemoryBook } from './memory-scope/memory-book';
import { MemoryViews } from './views/memory-views';
import type { ViewHostOptions } from './views/view-host';

export interface MemoryOptions {
  /** How the read models are run and checkpointed (tests shorten the checkpoint gap). */
  views?: ViewHostOptions;
  /** Run outcomes kept per scope (DEFAULT_RUN_OUTCOME_LIMIT by default). */
  runOutcomeLimit?: number;
}

/** What the memory service's handlers and processors work with, built once from the process's ports. */
export interface MemoryDeps {
  store: EventStore;
  views: MemoryViews;
  book: MemoryBook;
  config: MemoryConfig;
  clock: Clock;
  /** The directories whose projects this deployment serves; undefined: every one. */
  projectRoots: readonly string[] | undefined;
  logger: ShellPorts['logger'];
}

/** A bad setting (`STAGECRAFT_PRICES`, `STAGECRAFT_STUCK_AFTER_MS`) stops the start, naming its variable. */
export function memoryDeps(shell: ShellPorts, options: MemoryOptions): MemoryDeps {
  const { store, logger } = shell;
  if (!store) throw new Error('memory needs an event store');
  const config = memoryConfigFromEnv(shell.env);
  const views = new MemoryViews(store, READ_MODELS, config.waitMs, {
    ...options.views,
    onFailure: (name, error) => {
      logger.error({ readModel: name, err: toErrorReply(error).message }, 'read model stopped');
      options.views?.onFailure?.(name, error);
    },
    onCheckpointError: (name, error) => {
      logger.warn({ readModel: name, err: toErrorReply(error).message }, 'read model checkpoint not saved; trying again later');
      options.views?.onCheckpointError?.(name, error);
    },
  });
  const book = new MemoryBook({
    store,
    views,
    clock: shell.clock,
    newId: shell.newId,
    runOutcomeLimit: options.runOutcomeLimit ?? DEFAULT_RUN_OUTCOME_LIMIT,
    embedder: embedderFromEnv(shell.env),
    onEmbeddingError: (error: unknown) => logger.warn({ err: toErrorReply(error).message }, 'embeddings failed; recall ranked lexically'),
  });
  return { store, views, book, config, clock: shell.clock, projectRoots: shell.projectRoots, logger };
}
