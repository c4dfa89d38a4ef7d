import { ChatMessage, EventRange, HistorySummary, SourcedMessage, streams } from '@stagecraft/contracts';
import { compactionEvent, planCompaction, withSummary } from './plan';
import { rangesOf } from './sources';
import { WINDOW_ONLY_COMPACTION } from './settings';
import { conversationBudget } from '../window';
import { extractiveSummary, transcriptOf } from './summary';
import { SUMMARIZE_PROMPT } from '@stagecraft/prompts';
import { needs } from '@stagecraft/decider';
import { RunDecision } from '../run-decision';
import { Knowledge, Need } from '../inputs';
import { runIds } from '../ids';
import { promptRequest } from '../rules';
import { InStage, Running, inStage } from '../state';

/** The summary the run's requests start with: its own latest, else the conversation's. */
export const currentSummary = (s: Running): HistorySummary | null => s.compaction?.summary ?? s.prior.summary;

/** The earlier turns and this run's messages that no summary stands for yet. */
export const pendingMessages = (s: Running): SourcedMessage[] => [...s.prior.messages, ...s.history].slice(s.compaction?.replaced ?? 0);

/** What a model request carries after its system prompt: summary, then every message after it. */
export const requestConversation = (s: Running): ChatMessage[] => withSummary(currentSummary(s), pendingMessages(s));

/**
 * Seed 002 §7: before the run asks the model again, compacts what the request would carry when it
 * has grown past the run's settings. The extractive method decides here; the `model` method needs a
 * summary the shell asks the model for, and falls back to the extractive one when that call failed.
 */
export function compactIfDue(decision: RunDecision, knowledge: Knowledge): void {
  const s = decision.state;
  if (!inStage(s) || s.current.step.kind !== 'ask' || s.current.stage === 'qa_review') return;
  // Only a run that recorded its window is bound by it: an older log replays as it was decided.
  const budget = conversationBudget(s.start.limits);
  const settings = s.start.compaction ?? (budget < Infinity ? WINDOW_ONLY_COMPACTION : undefined);
  if (!settings) return;
  const summary = currentSummary(s);
  const plan = planCompaction(summary, pendingMessages(s), settings, budget);
  if (!plan) return;
  const compactionId = runIds.compaction(s.start.runId, (s.compaction?.count ?? 0) + 1);
  const run = streams.run(s.start.runId);
  const lastReplaced = Math.max(-1, ...plan.replaced.filter((m) => m.stream === run).map((m) => m.revision));
  const drawnOn = s.compaction?.runThrough ?? -1;
  const outcomes = s.outcomes.filter((o) => o.revision > drawnOn && o.revision < lastReplaced);
  if (settings.method === 'model') {
    const made = knowledge.summary(compactionId);
    if (made === undefined)
      needs<Need>(summaryNeed(s, compactionId, transcriptOf(summary, plan.replaced), rangesOf([...plan.replaced, ...outcomes])));
    if ('summary' in made) {
      decision.add(
        'HistoryCompacted',
        compactionEvent({ compactionId, plan, method: 'model', summary: made.summary, outcomes, modelCall: made.modelCall }),
      );
      return;
    }
  }
  const extractive = extractiveSummary({ previous: summary, messages: plan.replaced, outcomes, settings });
  decision.add('HistoryCompacted', compactionEvent({ compactionId, plan, method: 'extractive', summary: extractive, outcomes }));
}

function summaryNeed(s: InStage, compactionId: string, transcript: string, covers: EventRange[]): Need {
  const { start, current } = s;
  return {
    kind: 'summary',
    compactionId,
    assemble: promptRequest(s, { ...current.policy, prompts: [SUMMARIZE_PROMPT] }, []),
    transcript,
    covers,
    meta: {
      requestId: compactionId,
      runId: start.runId,
      conversationId: start.conversationId,
      stage: current.stage,
      userMode: start.userMode,
      reasoningEnabled: start.reasoningEnabled,
    },
  };
}
