import { z } from 'zod';
import { ContextId, ConversationId, Id, IsoTimestamp, RunId } from './common';

/** Carried by every event; runId and conversationId are absent only on streams outside a run (memory). */
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
  correlationId: Id,
  occurredAt: IsoTimestamp,
});
export type EventMetadata = z.infer<typeof EventMetadata>;
