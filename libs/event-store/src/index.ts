/** The event store port, its memory, sqlite and kurrentdb adapters, checkpoints, the one log runner and the decided-stream append. */
/*
 * The event store port and its adapters.
 *
 * Open a store with `openEventStore(url)` (`memory:`, `sqlite:PATH`, `kurrentdb://…`/`esdb://…`)
 * or a factory. Checkpoints live in the same engine as the events and come with the store:
 * `store.checkpoints` (memory: a map; sqlite: the `checkpoints` table of the same file;
 * kurrentdb: the latest event of stream `checkpoint-<name>`). A state over 512 KiB of JSON is kept in
 * pieces that each fit KurrentDB's 1 MiB append, with a digest checked on load (docs/decisions/0041);
 * the memory store refuses an append over that limit as KurrentDB does. One runner follows the log
 * (`startProcessor`): a processor's effect is a side effect, a projection's (`startProjection(store,
 * store.checkpoints, projection)`) is its checkpointed state; `rebuildProjection` folds one from zero,
 * `catchUpProjection` from its checkpoint.
 */
export * from './port';
export { readEvents, type Recorded } from './read-events';
export { ConcurrencyError, type ActualRevision } from './errors';
export { createMemoryEventStore } from './memory/memory-event-store';
export { createMemoryCheckpointStore } from './memory/memory-checkpoints';
export { createSqliteEventStore, type SqliteEventStoreOptions } from './sqlite/sqlite-event-store';
export { isStoreFull } from './sqlite/sqlite-errors';
export { createKurrentDbEventStore, type KurrentDbEventStoreOptions } from './kurrentdb/kurrentdb-event-store';
export { normalizeKurrentDbConnectionString } from './kurrentdb/connection-string';
export {
  DEFAULT_EVENT_STORE_URL,
  openEventStore,
  parseEventStoreUrl,
  type EventStoreLocation,
  type OpenEventStoreOptions,
} from './open-event-store';
export type { Projection, ProjectionOptions, ProjectionUpdate, RunningProjection } from './projection/projection';
export { processorOf, startProjection } from './projection/start-projection';
export { startProcessor } from './projection/start-processor';
export type { Checkpointed, Processor, ProcessorFailure, ProcessorOptions, RunningProcessor } from './projection/processor';
export { catchUpProjection, rebuildProjection, rebuildProjections } from './projection/rebuild-projection';
export { pagesAfter } from './projection/pages';
export { stableEventId } from './stable-event-id';
export { instrumentedStore } from './instrumented';
export { chainBatch, chainContent, chainOf, linkHash, streamGenesis, type ChainContent, type ChainLink } from './chain/chain';
export {
  createChainVerifier,
  describeChainBreak,
  describeChainReport,
  verifyLogChain,
  verifyStoreChain,
  verifyStreamChain,
  type ChainBreak,
  type ChainProblem,
  type ChainReport,
} from './chain/verify-chain';
export { appendDecided, validData, type AppendDecidedOptions } from './decided/append-decided';
export { DecidedStream, type DecidedStreamOptions, type StreamPorts } from './decided/decided-stream';
