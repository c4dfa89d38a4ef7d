import { EventRange, HistorySummary, SUMMARY_SECTIONS, SummarySectionName } from '@stagecraft/contracts';
import type { SourcedMessage } from '@stagecraft/contracts';
import { stripReasoning } from '@stagecraft/reasoning';
import { clip, meaningful } from './clip';
import { Kept, KeptSections, keepByImportance } from './summary-keep';
import { renderSummary } from './summary-text';

const SECTION_BY_HEADING: [RegExp, SummarySectionName][] = [
  [/^goals?$/, 'goals'],
  [/^decisions?$/, 'decisions'],
  [/^(current )?plan$/, 'currentPlan'],
  [/^open (issues|questions|risks)$|^issues$/, 'openIssues'],
  [/^(important )?tool outputs?$|^tool results?$/, 'toolOutputs'],
];

/**
 * `[run-r1@3-5]` or `[conversation-c@4]` at the end of a line: the events an item came from, as the transcript
 * cited them. The model is not trusted: a source it made up is only a wrong citation, and bounded in size.
 */
const ORIGIN = /\s*\[([^[\]@\s]{1,120})@(\d{1,9})(?:-(\d{1,9}))?\]\s*$/;

function withOrigin(line: string): Kept {
  const cited = ORIGIN.exec(line);
  if (!cited) return { text: clip(line), origin: null };
  const from = Number(cited[2]);
  const to = cited[3] === undefined ? from : Number(cited[3]);
  return { text: clip(line.slice(0, cited.index)), origin: { stream: cited[1], from: Math.min(from, to), to: Math.max(from, to) } };
}

/**
 * A summary the model wrote (the `model` method), read leniently: `## Heading` or `Heading:` lines
 * start a section, bullets or lines are its items, a trailing `[stream@from-to]` the events an item
 * came from. Every section cites everything that was summarised; items are kept by the rule of
 * version 2 (every goal, the rest under a budget).
 */
export function parseSummary(text: string, covers: readonly EventRange[]): HistorySummary {
  const items: KeptSections = { goals: [], decisions: [], currentPlan: [], openIssues: [], toolOutputs: [] };
  let section: SummarySectionName = 'currentPlan';
  for (const raw of stripReasoning(text).split('\n')) {
    const line = raw.trim();
    const heading = /^(?:#{1,6}\s*)?([A-Za-z ]+?)\s*:?\s*$/.exec(line)?.[1]?.toLowerCase();
    const named = heading ? SECTION_BY_HEADING.find(([pattern]) => pattern.test(heading))?.[1] : undefined;
    if (named) {
      section = named;
      continue;
    }
    const item = withOrigin(line.replace(/^([-*•]|\d+[.)])\s+/, ''));
    if (meaningful(item.text)) items[section].push(item);
  }
  const kept = keepByImportance(items);
  const summary = {} as HistorySummary;
  for (const name of SUMMARY_SECTIONS)
    summary[name] = { items: kept[name].map((k) => k.text), sources: [...covers], origins: kept[name].map((k) => k.origin) };
  return summary;
}

/**
 * What the `model` method sends to be summarised: the earlier summary and the messages it replaces, as
 * text, each message after the event it is stored as (`[stream@revision]`), for the summary to cite.
 */
export function transcriptOf(previous: HistorySummary | null, messages: readonly SourcedMessage[]): string {
  const lines = previous ? [renderSummary(previous), ''] : [];
  for (const { message, stream, revision } of messages) {
    const calls = message.toolCalls?.length
      ? ` [calls: ${message.toolCalls.map((c) => `${c.name} ${clip(c.arguments, 120)}`).join('; ')}]`
      : '';
    lines.push(`[${stream}@${revision}] ${message.role}: ${clip(message.content, 1_200)}${calls}`);
  }
  return lines.join('\n');
}
