import { z } from 'zod';
import { ContextId, ConversationId, Id, IsoTimestamp, RunId } from './common';

/** Carried by every event; runId and conversationId are absent only on streams outside a run (memory). */
export const EventMetadata = z.object({
  runId: RunId.optional(),
  conversationId: ConversationId.optional(),
  contextId: ContextId.optional(),
  causationId: Id.optional(),
  correlationId: Id,
  occurredAt: IsoTimestamp,
});
export type EventMetadata = z.infer<typeof EventMetadata>;
