import { RunView, StagecraftEvent } from '@stagecraft/contracts';
import { RunState, foldRun } from './run-state';

/** The run as a caller sees it: a view of the same state the run loop folds. `null` until RunStarted. */
export function runViewOf(state: RunState, eventCount: number): RunView | null {
  const start = state.start;
  if (!start) return null;
  return {
    runId: start.runId,
    conversationId: start.conversationId,
    userMode: start.userMode,
    reasoningEnabled: start.reasoningEnabled,
    status: state.status === 'completed' || state.status === 'failed' ? state.status : 'running',
    stage: state.stage,
    deliveryState: state.deliveryState,
    answer: state.status === 'completed' ? (state.answer ?? '') : null,
    eventCount,
    revision: eventCount - 1,
  };
}

export const foldRunView = (events: readonly StagecraftEvent[]): RunView | null => runViewOf(foldRun(events), events.length);
