import { PendingApproval, RunView } from '@stagecraft/contracts';
import { foldRun } from './evolve';
import { RunState } from './state';

/** What a running run waits for, as callers see it (`requestedAt` is empty for events not stored yet). */
export function pendingApprovalOf(state: RunState): PendingApproval | null {
  if (state.status !== 'running' || !state.pendingApproval) return null;
  const { requestedAt, ...requested } = state.pendingApproval;
  return { ...requested, requestedAt: requestedAt ?? '' };
}

/** The run as a caller sees it: a view of the same state the run loop folds. `null` until RunStarted. */
export function runViewOf(state: RunState, eventCount: number): RunView | null {
  if (state.status === 'new') return null;
  const { start } = state;
  return {
    runId: start.runId,
    conversationId: start.conversationId,
    userMode: start.userMode,
    reasoningEnabled: start.reasoningEnabled,
    status: state.status,
    stage: state.current?.stage ?? null,
    deliveryState: state.deliveryState,
    answer: state.status === 'completed' ? state.answer : null,
    eventCount,
    revision: eventCount - 1,
    pendingApproval: pendingApprovalOf(state),
  };
}

export const foldRunView = (events: Parameters<typeof foldRun>[0]): RunView | null => runViewOf(foldRun(events), events.length);
