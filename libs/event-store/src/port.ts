import type { RecordedEvent } from '@stagecraft/contracts';

/** Global log position: strictly increasing in commit order, comparable across streams. */
export type Position = bigint;

/** `bigint` is the exact revision (0-based) of the stream's last event. */
export type ExpectedRevision = 'no_stream' | 'any' | 'stream_exists' | bigint;

export interface NewEvent {
  /** Caller-chosen uuid; a retried append with the same ids is recorded once. */
  id: string;
  type: string;
  data: unknown;
  metadata: unknown;
}

/** One shape for the store's readers and every projection, kept in the contracts. */
export type { RecordedEvent } from '@stagecraft/contracts';

export interface AppendResult {
  nextExpectedRevision: bigint;
  /** Position of the last event of the batch. */
  position: Position;
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  fromRevision?: bigint;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: only events with a greater position are returned. */
  fromPosition?: Position | 'start';
  /** Counts the events returned, so with `types` it counts only events of those types. */
  maxCount?: number;
  /**
   * Only events of these types, filtered by the engine: the others are never read into memory or
   * parsed. What a projection folds is usually a small part of the log.
   */
  types?: readonly string[];
}

export interface SubscribeToAllOptions {
  /** Exclusive, like `readAll`: pass a checkpoint to resume right after it. */
  fromPosition: Position | 'start';
  filter?: (event: RecordedEvent) => boolean;
}

/**
 * Catch-up then live, in global order, each event once; iterate it once. An event this process has
 * just appended may be handed over as the appended object itself: subscribers treat events as read-only.
 */
export interface EventSubscription extends AsyncIterable<RecordedEvent> {
  close(): Promise<void>;
}

export interface EventReader {
  /** Returns `[]` for a stream that does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  subscribeToAll(options: SubscribeToAllOptions): EventSubscription;
  /** The position of the last event in the log (0 when empty); adapters that cannot tell cheaply have none. */
  headPosition?(): Promise<Position>;
}

export interface AppendOptions {
  expectedRevision?: ExpectedRevision;
}

export interface EventWriter {
  appendToStream(stream: string, events: NewEvent[], options?: AppendOptions): Promise<AppendResult>;
}

/** A projection's checkpoint: the last position it has seen and its state, saved together. State must be JSON. */
export interface CheckpointStore {
  load<S>(name: string): Promise<{ position: Position; state: S } | null>;
  save<S>(name: string, position: Position, state: S): Promise<void>;
}

export type EventStoreKind = 'memory' | 'sqlite' | 'kurrentdb';

export interface EventStore extends EventReader, EventWriter {
  readonly kind: EventStoreKind;
  /** Checkpoints kept next to the events, in the same engine. */
  readonly checkpoints: CheckpointStore;
  /**
   * Gives back the room an adapter keeps for the disk filling up (sqlite: a file next to the store),
   * so the append that records why a run stopped still fits; true when there was any.
   */
  releaseReserve?(): boolean;
  close(): Promise<void>;
}
