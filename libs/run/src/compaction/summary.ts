import {
  CompactionSettings,
  EventRange,
  EventRef,
  HistorySummary,
  SUMMARY_SECTIONS,
  SummarySection,
  SummarySectionName,
} from '@stagecraft/contracts';
import type { SourcedMessage, SourcedOutcome } from '@stagecraft/contracts';
import { clip, meaningful } from './clip';
import { Kept, KeptSections, keepByCount, keepByImportance, restBudgetChars } from './summary-keep';
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

/** The tool each result answered, from the assistant message that asked for it. */
function toolNames(messages: readonly SourcedMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const { message } of messages)
    for (const call of message.toolCalls ?? []) names.set(call.id, `${call.name} ${clip(call.arguments, 80)}`);
  return names;
}

type Drawn = Record<SummarySectionName, { text: string; ref: EventRef }[]>;

/** The items the messages and outcomes give each section, oldest first, each with the event it came from. */
function draw(messages: readonly SourcedMessage[], outcomes: readonly SourcedOutcome[]): Drawn {
  const drawn: Drawn = { goals: [], decisions: [], currentPlan: [], openIssues: [], toolOutputs: [] };
  const add = (section: SummarySectionName, text: string, ref: EventRef) => {
    const item = clip(text);
    if (item) drawn[section].push({ text: item, ref: { stream: ref.stream, revision: ref.revision } });
  };
  const tools = toolNames(messages);
  for (const m of messages) {
    const { role, content, toolCalls, toolCallId } = m.message;
    if (m.kind === 'user_input' || (m.kind === undefined && role === 'user')) add('goals', content, m);
    else if (m.kind === 'correction') add('openIssues', `Correction: ${content}`, m);
    else if (role === 'tool') add('toolOutputs', `${tools.get(toolCallId ?? '') ?? 'tool'} → ${content}`, m);
    else if (role === 'assistant' && !toolCalls?.length && meaningful(clip(content))) add('decisions', `Answered: ${content}`, m);
  }
  for (const o of outcomes) {
    const { plan_delta, next_action, known_risks, delivery_state } = o.outcome;
    if (meaningful(plan_delta)) add('decisions', plan_delta, o);
    if (meaningful(known_risks)) add('openIssues', `Risk: ${known_risks}`, o);
    add('currentPlan', `Next: ${next_action} (delivery ${delivery_state})`, o);
  }
  return drawn;
}

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
  const drawn = draw(input.messages, input.outcomes);
  const sources = (name: SummarySectionName) => rangesOf([...previous[name].sources, ...drawn[name].map((d) => d.ref)]);
  const merged = {} as HistorySummary;
  if ((input.settings?.summaryVersion ?? 1) === 1) {
    for (const name of SUMMARY_SECTIONS)
      merged[name] = { items: keepByCount(name, [...previous[name].items, ...drawn[name].map((d) => d.text)]), sources: sources(name) };
    return merged;
  }
  const sections = {} as KeptSections;
  for (const name of SUMMARY_SECTIONS)
    sections[name] = [
      ...keptOf(previous[name]),
      ...drawn[name].map(({ text, ref }) => ({ text, origin: { stream: ref.stream, from: ref.revision, to: ref.revision } })),
    ];
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
