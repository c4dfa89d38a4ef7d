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
});
export type EventMetadata = z.infer<typeof EventMetadata>;
