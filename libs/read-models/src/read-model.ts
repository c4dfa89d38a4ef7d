/** An event as the log hands it to a read model: where it is stored, and what it says. */
export interface LoggedEvent {
  streamId: string;
  revision: bigint;
  position: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
}

/**
 * A view folded from the log: a pure `evolve` over the event types it `handles`. The same events in
 * the same order always give the same view, and the view is JSON, so it is checkpointed with its
 * position and compared byte for byte when rebuilt (`stagecraft replay --verify`). The event store's
 * projection runner takes it as it is.
 */
export interface ReadModel<S> {
  name: string;
  handles: readonly string[];
  initialState(): S;
  evolve(state: S, event: LoggedEvent): S;
}
