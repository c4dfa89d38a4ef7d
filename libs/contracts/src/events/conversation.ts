import { EventUnion, eventFamily } from './family';
import { MessageAppended } from './shared';

/** `conversation-<conversationId>`: each finished turn, the user's message and the answer. */
export const conversationEventSchemas = { MessageAppended };

export const conversationEvents = eventFamily(conversationEventSchemas);
export type ConversationEvent = EventUnion<typeof conversationEventSchemas>;
