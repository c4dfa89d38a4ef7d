import {
  CompactionSettings,
  EventRange,
  HistorySummary,
  SUMMARY_SECTIONS,
  SummarySection,
  SummarySectionName,
} from '@stagecraft/contracts';
import type { SourcedMessage, SourcedOutcome } from '@stagecraft/contracts';
import { Kept, KeptSections, keepByCount, keepByImportance, restBudgetChars } from './summary-keep';
import { drawItems } from './summary-draw';
import { rangesOf } from './sources';

export { clip } from './clip';

const emptySection = (): SummarySection => ({ items: [], sources: [] });
export const EMPTY_SUMMARY: HistorySummary = {
  goals: emptySection(),
  decisions: emptySection(),
  currentPlan: emptySection(),
  openIssues: emptySection(),
  toolOutputs: emptySection(),
};

/**
 * The extractive summary (the default method): taken, deterministically and without a model, from
 * the user's inputs, the reasoning outcomes and the tool results of the messages it replaces, on
 * top of the summary they already had. Each section cites the events its items came from; from
 * version 2 each item too, and every turn's goal and answer is kept (summary-keep.ts).
 */
export function extractiveSummary(input: {
  previous: HistorySummary | null;
  messages: readonly SourcedMessage[];
  outcomes: readonly SourcedOutcome[];
  /** The run's recorded settings: `summaryVersion` says the rule (absent: version 1), `maxTokens` sizes version 2's budget. */
  settings?: Pick<CompactionSettings, 'summaryVersion' | 'maxTokens'>;
}): HistorySummary {
  const previous = input.previous ?? EMPTY_SUMMARY;
  const drawn = drawItems(input.messages, input.outcomes);
  const sources = (name: SummarySectionName) => rangesOf([...previous[name].sources, ...drawn[name].map((d) => d.origin)]);
  const merged = {} as HistorySummary;
  if ((input.settings?.summaryVersion ?? 1) === 1) {
    for (const name of SUMMARY_SECTIONS)
      merged[name] = { items: keepByCount(name, [...previous[name].items, ...drawn[name].map((d) => d.text)]), sources: sources(name) };
    return merged;
  }
  const sections = {} as KeptSections;
  for (const name of SUMMARY_SECTIONS) sections[name] = [...keptOf(previous[name]), ...drawn[name]];
  const kept = keepByImportance(sections, restBudgetChars(input.settings?.maxTokens));
  for (const name of SUMMARY_SECTIONS) merged[name] = withOrigins(kept[name], sources(name));
  return merged;
}

const keptOf = (section: SummarySection): Kept[] => section.items.map((text, i) => ({ text, origin: section.origins?.[i] ?? null }));
const withOrigins = (kept: readonly Kept[], sources: EventRange[]): SummarySection => ({
  items: kept.map((k) => k.text),
  sources,
  origins: kept.map((k) => k.origin),
});

export { renderSummary, summaryMessage } from './summary-text';
export { parseSummary, transcriptOf } from './model-summary';
export { DIGEST_CHARS, renderDigest, runDigest } from './summary-digest';
