import { CompactionSettings, CompactionTrigger, HistoryCompacted, HistorySummary } from '@stagecraft/contracts';
import { compactionTrigger, estimateTokens, recentWindowStart } from './settings';
import { rangesOf } from './sources';
import type { SourcedMessage, SourcedOutcome } from '@stagecraft/contracts';
import { summaryMessage } from './summary';
import { summaryAllowance } from '../window';

/** What a compaction would replace, when one is due. */
export interface CompactionPlan {
  trigger: CompactionTrigger;
  /** The leading messages the summary stands for. */
  replaced: readonly SourcedMessage[];
  /** The recent window that stays verbatim. */
  kept: readonly SourcedMessage[];
}

/** The messages a request carries after the system prompt: the summary, if any, then the rest verbatim. */
export const withSummary = (summary: HistorySummary | null, messages: readonly SourcedMessage[]) =>
  summary ? [summaryMessage(summary), ...messages.map((m) => m.message)] : messages.map((m) => m.message);

/**
 * Decides whether the messages after the current summary (`pending`) must be compacted, and where the
 * recent window starts. Under a window (`windowBudget`, the conversation's share of it) the recent window
 * shrinks to what fits next to the summary, down to the last exchange. Null when the trigger does not
 * fire, or when nothing older than the last exchange is left to replace.
 */
export function planCompaction(
  summary: HistorySummary | null,
  pending: readonly SourcedMessage[],
  settings: CompactionSettings,
  windowBudget = Infinity,
): CompactionPlan | null {
  const trigger = compactionTrigger(withSummary(summary, pending), settings, windowBudget);
  if (!trigger) return null;
  const start = recentWindowStart(
    pending.map((m) => m.message),
    Math.min(settings.keepRecentTokens, windowBudget - summaryAllowance(windowBudget)),
    Math.floor(settings.maxMessages / 2),
  );
  if (start < 1) return null;
  return { trigger, replaced: pending.slice(0, start), kept: pending.slice(start) };
}

/** The event a planned compaction becomes, once its summary is made. */
export function compactionEvent(input: {
  compactionId: string;
  plan: CompactionPlan;
  method: HistoryCompacted['method'];
  summary: HistorySummary;
  outcomes: readonly SourcedOutcome[];
  modelCall?: HistoryCompacted['modelCall'];
}): HistoryCompacted {
  const { plan, summary } = input;
  return {
    compactionId: input.compactionId,
    method: input.method,
    trigger: plan.trigger,
    replaced: plan.replaced.length,
    covers: rangesOf([...plan.replaced, ...input.outcomes]),
    summary,
    tokensBefore: plan.trigger.tokenEstimate,
    tokensAfter: estimateTokens(withSummary(summary, plan.kept)),
    ...(input.modelCall ? { modelCall: input.modelCall } : {}),
  };
}
