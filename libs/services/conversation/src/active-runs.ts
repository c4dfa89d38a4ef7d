import { runOfStream } from '@stagecraft/contracts';
import type { Projection, RecordedEvent } from '@stagecraft/event-store';

/** Runs that started and have not ended: what a restarted conversation service must pick up again. */
export const activeRunsProjection: Projection<{ active: string[] }> = {
  name: 'conversation-active-runs',
  handles: ['RunStarted', 'RunCompleted', 'RunFailed', 'RunCancelled', 'RunContinued'],
  initialState: () => ({ active: [] }),
  evolve(state, event: RecordedEvent) {
    // The stream names the run; logs written before also say it in the metadata (docs/decisions/0018).
    const runId = (event.metadata as { runId?: string }).runId ?? runOfStream(event.streamId);
    if (!runId) return state;
    // A cancelled run taken up again is active again.
    if (event.type === 'RunStarted' || event.type === 'RunContinued')
      return state.active.includes(runId) ? state : { active: [...state.active, runId] };
    return { active: state.active.filter((id) => id !== runId) };
  },
};
