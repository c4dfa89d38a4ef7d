import { HistoryCompacted } from '../history';
import { EventUnion, eventFamily } from './family';
import { MessageAppended } from './shared';

/**
 * `conversation-<conversationId>`: each finished turn, the user's message and the answer; and, once the
 * turns grow past the compaction trigger, a summary standing for the older ones.
 */
export const conversationEventSchemas = { MessageAppended, HistoryCompacted };

export const conversationEvents = eventFamily(conversationEventSchemas);
export type ConversationEvent = EventUnion<typeof conversationEventSchemas>;
