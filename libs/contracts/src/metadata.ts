import { z } from 'zod';
import { ContextId, ConversationId, Id, IsoTimestamp, RunId } from './common';

/**
 * Carried by every event. On a run stream the stream's name says the run, and only `RunStarted` names
 * the conversation and the correlation, which every later event of the run shares (docs/decisions/0018);
 * the live feed adds the run id back. Streams outside a run (memory) have no run or conversation.
 */
export const EventMetadata = z.object({
  runId: RunId.optional(),
  conversationId: ConversationId.optional(),
  contextId: ContextId.optional(),
  causationId: Id.optional(),
  /**
   * Run streams: the revision of the first event of the commit (one append) this event belongs to, so
   * commit boundaries can be read back from the log. Absent in logs written before it was recorded.
   */
  commitStart: z.number().int().min(0).optional(),
  correlationId: Id.optional(),
  occurredAt: IsoTimestamp,
  /**
   * The event's link in its stream's hash chain, set by the event store on append (a value given by
   * the writer is replaced): `prev` is the hash of the stream's event before it (the first event's is
   * a hash of the stream name), `hash` covers `prev` and the event's id, type, data and metadata
   * without this field (docs/decisions/0037). Absent in logs written before streams were chained.
   */
  chain: z.object({ prev: z.string().max(64), hash: z.string().max(64) }).optional(),
});
export type EventMetadata = z.infer<typeof EventMetadata>;
