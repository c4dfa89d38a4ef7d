import { CONTEXT_ID_PATTERN } from '../context';
import { parseContextId } from './context-id';

/** The last sequence handed out, per workflow run and agent type. Plain data, so it can be stored and rebuilt. */
export type SequenceState = Readonly<Record<string, Readonly<Record<string, number>>>>;

export const EMPTY_SEQUENCES: SequenceState = Object.freeze({});

export function lastSequence(state: SequenceState, workflowRunId: string, agentType: string): number {
  return Object.hasOwn(state, workflowRunId) && Object.hasOwn(state[workflowRunId], agentType) ? state[workflowRunId][agentType] : 0;
}

/** Pure: the next sequence for (run, agent type), from 1, and the state that records it. */
export function nextSequence(state: SequenceState, workflowRunId: string, agentType: string): { sequence: number; state: SequenceState } {
  const sequence = lastSequence(state, workflowRunId, agentType) + 1;
  return { sequence, state: { ...state, [workflowRunId]: { ...state[workflowRunId], [agentType]: sequence } } };
}

/** Folds context ids already issued (read back from a run's events) into the state, so numbering resumes without reuse. */
export function observeContextId(state: SequenceState, contextId: string): SequenceState {
  // Folding reads back ids this code wrote: the pattern alone is enough, and the full check only says why one is not.
  const match = CONTEXT_ID_PATTERN.exec(contextId);
  const { workflowRunId, agentType, sequence } = match
    ? { workflowRunId: match[1], agentType: match[2], sequence: Number(match[3]) }
    : parseContextId(contextId);
  if (sequence <= lastSequence(state, workflowRunId, agentType)) return state;
  return { ...state, [workflowRunId]: { ...state[workflowRunId], [agentType]: sequence } };
}

export const sequencesFrom = (contextIds: Iterable<string>): SequenceState => [...contextIds].reduce(observeContextId, EMPTY_SEQUENCES);
