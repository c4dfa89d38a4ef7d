import { formatContextId } from './context-id';
import { EMPTY_SEQUENCES, nextSequence, SequenceState } from './sequence';

export interface AllocateContextId {
  workflowRunId: string;
  agentType: string;
  /** ISO-8601 UTC; the caller's clock, so that the library stays replayable. */
  timestamp: string;
}

export interface ContextIdAllocatorOptions {
  initial?: SequenceState;
  /** Awaited before an id is handed out (e.g. to record the new state); when it fails, the number is not used. */
  persist?: (state: SequenceState, contextId: string) => Promise<void>;
}

export interface ContextIdAllocator {
  allocate(request: AllocateContextId): Promise<string>;
  state(): SequenceState;
}

/**
 * Hands out context ids one at a time. Allocations are chained, so the read-increment-persist of one
 * finishes before the next reads the state: no two callers get the same number, and a failed persist leaves no gap.
 */
export function createContextIdAllocator(options: ContextIdAllocatorOptions = {}): ContextIdAllocator {
  let state = options.initial ?? EMPTY_SEQUENCES;
  let tail: Promise<unknown> = Promise.resolve();

  const allocateNow = async ({ workflowRunId, agentType, timestamp }: AllocateContextId): Promise<string> => {
    const next = nextSequence(state, workflowRunId, agentType);
    const contextId = formatContextId({ workflowRunId, agentType, sequence: next.sequence, timestamp });
    await options.persist?.(next.state, contextId);
    state = next.state;
    return contextId;
  };

  return {
    allocate(request) {
      const result = tail.then(() => allocateNow(request));
      tail = result.catch(() => undefined);
      return result;
    },
    state: () => state,
  };
}
