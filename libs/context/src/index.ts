export { formatContextId, parseContextId } from './context-id';
export { EMPTY_SEQUENCES, lastSequence, nextSequence, observeContextId, sequencesFrom } from './sequence';
export type { SequenceState } from './sequence';
export { createContextIdAllocator } from './allocator';
export type { AllocateContextId, ContextIdAllocator, ContextIdAllocatorOptions } from './allocator';
export { upstreamContextContributor, renderUpstream } from './contributors/upstream-context';
export { previousAttemptContributor, renderPreviousAttempt } from './contributors/previous-attempt';
export { describeUpstream, upstreamId } from './contributors/describe-upstream';
export * from './compaction';
