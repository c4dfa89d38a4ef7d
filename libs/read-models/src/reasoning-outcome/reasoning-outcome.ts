import type { Projection, ReasoningEntry, ReasoningOutcome, Stage } from '@stagecraft/contracts';
import { entryOf, runEventOf } from '../logged';

/** One run's reasoning: where it is (the stage it entered last) and every outcome it recorded, oldest first. */
export interface RunReasoning {
  runId: string;
  conversationId: string | null;
  stage: Stage | null;
  contextId: string | null;
  history: ReasoningEntry[];
}

/** A conversation's latest outcome, from whichever of its runs recorded one last. */
export interface ConversationReasoning {
  runId: string;
  outcome: ReasoningOutcome;
  position: string;
}

export interface ReasoningOutcomeView {
  runs: Record<string, RunReasoning>;
  conversations: Record<string, ConversationReasoning>;
}

const newRun = (runId: string, conversationId: string | null): RunReasoning => ({
  runId,
  conversationId,
  stage: null,
  contextId: null,
  history: [],
});

/**
 * The `ReasoningOutcome` the next turn reads, per run and per conversation. Each entry takes its stage
 * and context id from the run's latest `StageEntered` before it. The fold owns its view: it replaces a
 * run's or a conversation's entry in place (copying every run per event would make a rebuild
 * quadratic) and never changes an entry it has handed out.
 */
export const reasoningOutcomeModel: Projection<ReasoningOutcomeView> = {
  name: 'memory-reasoning-outcome',
  handles: ['RunStarted', 'StageEntered', 'ReasoningRecorded'],
  initialState: () => ({ runs: {}, conversations: {} }),
  evolve(view, logged) {
    const found = runEventOf(logged);
    if (!found) return view;
    const { runId, event } = found;
    const run = entryOf(view.runs, runId) ?? newRun(runId, event.metadata.conversationId ?? null);
    switch (event.type) {
      case 'RunStarted':
        view.runs[runId] = { ...run, conversationId: event.data.conversationId };
        return view;
      case 'StageEntered':
        view.runs[runId] = { ...run, stage: event.data.stage, contextId: event.data.contextId };
        return view;
      case 'ReasoningRecorded': {
        const position = event.position.toString();
        const { requestId, outcome } = event.data;
        const contextId = run.contextId ?? event.metadata.contextId ?? null;
        view.runs[runId] = { ...run, history: [...run.history, { requestId, stage: run.stage, contextId, position, outcome }] };
        if (run.conversationId !== null) view.conversations[run.conversationId] = { runId, outcome, position };
        return view;
      }
      default:
        return view;
    }
  },
};

/** What `memory.reasoning-outcome.get` answers: an outcome, the run it came from, and that run's outcomes. */
export interface ReasoningAnswer {
  runId: string | null;
  outcome: ReasoningOutcome | null;
  history: ReasoningEntry[];
}

const none = (): ReasoningAnswer => ({ runId: null, outcome: null, history: [] });

/** A run's latest outcome, or a conversation's: whichever the query names (a run when it names both). */
export function reasoningOf(view: ReasoningOutcomeView, query: { runId?: string; conversationId?: string }): ReasoningAnswer {
  if (query.runId !== undefined) return reasoningOfRun(view, query.runId);
  if (query.conversationId !== undefined) return reasoningOfConversation(view, query.conversationId);
  return none();
}

export function reasoningOfRun(view: ReasoningOutcomeView, runId: string): ReasoningAnswer {
  const history = entryOf(view.runs, runId)?.history ?? [];
  return { runId: history.length > 0 ? runId : null, outcome: history.at(-1)?.outcome ?? null, history };
}

export function reasoningOfConversation(view: ReasoningOutcomeView, conversationId: string): ReasoningAnswer {
  const latest = entryOf(view.conversations, conversationId);
  if (!latest) return none();
  return { runId: latest.runId, outcome: latest.outcome, history: entryOf(view.runs, latest.runId)?.history ?? [] };
}
