import type { EventReader, Position } from '../port';

/** How a running projection or processor reports its distance from the head of the log (`stagecraft_projection_lag_events`). */
export const lagOf = (reader: EventReader, position: () => Position) => ({
  position,
  head: async () => (reader.headPosition ? reader.headPosition() : undefined),
});
