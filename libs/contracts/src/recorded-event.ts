/**
 * An event as the log hands it over: where it is stored, and what it says. The event store's readers
 * return it and every projection folds it; one shape, so a read model needs no store to be written or tested.
 */
export interface RecordedEvent {
  id: string;
  streamId: string;
  revision: bigint;
  /** Global log position: strictly increasing in commit order, comparable across streams. */
  position: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  recordedAt: string;
}

/**
 * A view folded from the log: a pure `evolve` over the event types it `handles`. The same events in the
 * same order always give the same state, and the state is JSON, so it is checkpointed with its position
 * and compared byte for byte when rebuilt (`stagecraft replay --verify`).
 */
export interface Projection<S> {
  name: string;
  handles: readonly string[];
  initialState(): S;
  evolve(state: S, event: RecordedEvent): S;
}
