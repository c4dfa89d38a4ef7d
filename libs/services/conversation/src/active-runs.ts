import type { Projection, RecordedEvent } from '@stagecraft/event-store';

/** Runs that started and have not ended: what a restarted conversation service must pick up again. */
export const activeRunsProjection: Projection<{ active: string[] }> = {
  name: 'conversation-active-runs',
  handles: ['RunStarted', 'RunCompleted', 'RunFailed'],
  initialState: () => ({ active: [] }),
  evolve(state, event: RecordedEvent) {
    const runId = (event.metadata as { runId?: string }).runId;
    if (!runId) return state;
    if (event.type === 'RunStarted') return { active: [...state.active, runId] };
    return { active: state.active.filter((id) => id !== runId) };
  },
};
