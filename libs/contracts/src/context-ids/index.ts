export { formatContextId, parseContextId } from './context-id';
export { EMPTY_SEQUENCES, lastSequence, nextSequence, observeContextId, sequencesFrom, type SequenceState } from './sequence';
export {
  createContextIdAllocator,
  type AllocateContextId,
  type ContextIdAllocator,
  type ContextIdAllocatorOptions,
} from './allocator';
