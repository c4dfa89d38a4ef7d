/** The public run feed (feed/v1): versioned integration events, the one mapping from stored events, and a client's fold of them. */
export * from './v1';
export { INTERNAL_RUN_EVENT_TYPES, type StoredRunEventForFeed, isPublicRunEventType, toFeedEvent } from './to-feed-event';
export { type FeedRun, evolveFeedRun, foldFeedRun } from './fold';
