import {
  ChatMessage,
  EventRange,
  EventRef,
  HistorySummary,
  SUMMARY_SECTIONS,
  SummarySection,
  SummarySectionName,
} from '@stagecraft/contracts';
import type { SourcedMessage, SourcedOutcome } from '@stagecraft/contracts';
import { stripReasoning } from '@stagecraft/reasoning';
import { rangesOf } from './sources';

/** How many items each section keeps: the oldest goals (what was asked first) and the latest of the rest. */
const KEEP: Record<SummarySectionName, { first: number; last: number }> = {
  goals: { first: 2, last: 4 },
  decisions: { first: 0, last: 10 },
  currentPlan: { first: 0, last: 2 },
  openIssues: { first: 0, last: 6 },
  toolOutputs: { first: 0, last: 10 },
};

const ITEM_CHARS = 240;

/** One line, no reasoning block, at most `max` characters. */
export function clip(text: string, max = ITEM_CHARS): string {
  const line = stripReasoning(text)
    .replace(/<\/?ide_reasoning>/gi, '')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

const TRIVIAL = new Set(['', 'none', 'n/a', 'na', '-', 'nothing', 'no change', 'unchanged']);
const meaningful = (text: string | undefined): text is string =>
  text !== undefined && !TRIVIAL.has(text.trim().toLowerCase().replace(/\.$/, ''));

const emptySection = (): SummarySection => ({ items: [], sources: [] });
export const EMPTY_SUMMARY: HistorySummary = {
  goals: emptySection(),
  decisions: emptySection(),
  currentPlan: emptySection(),
  openIssues: emptySection(),
  toolOutputs: emptySection(),
};

function bounded(items: readonly string[], { first, last }: { first: number; last: number }): string[] {
  const unique = items.filter((item, i) => item.length > 0 && items.indexOf(item) === i);
  if (unique.length <= first + last) return unique;
  return [...unique.slice(0, first), ...unique.slice(unique.length - last)];
}

/** The tool each result answered, from the assistant message that asked for it. */
function toolNames(messages: readonly SourcedMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const { message } of messages)
    for (const call of message.toolCalls ?? []) names.set(call.id, `${call.name} ${clip(call.arguments, 80)}`);
  return names;
}

/**
 * The extractive summary (the default method): taken, deterministically and without a model, from
 * the user's inputs, the reasoning outcomes and the tool results of the messages it replaces, on
 * top of the summary they already had. Each section cites the events its items came from.
 */
export function extractiveSummary(input: {
  previous: HistorySummary | null;
  messages: readonly SourcedMessage[];
  outcomes: readonly SourcedOutcome[];
}): HistorySummary {
  const added: Record<SummarySectionName, { items: string[]; refs: EventRef[] }> = {
    goals: { items: [], refs: [] },
    decisions: { items: [], refs: [] },
    currentPlan: { items: [], refs: [] },
    openIssues: { items: [], refs: [] },
    toolOutputs: { items: [], refs: [] },
  };
  const add = (section: SummarySectionName, text: string, ref: EventRef) => {
    const item = clip(text);
    if (!item) return;
    added[section].items.push(item);
    added[section].refs.push({ stream: ref.stream, revision: ref.revision });
  };
  const tools = toolNames(input.messages);
  for (const m of input.messages) {
    const { role, content, toolCalls, toolCallId } = m.message;
    if (m.kind === 'user_input' || (m.kind === undefined && role === 'user')) add('goals', content, m);
    else if (m.kind === 'correction') add('openIssues', `Correction: ${content}`, m);
    else if (role === 'tool') add('toolOutputs', `${tools.get(toolCallId ?? '') ?? 'tool'} → ${content}`, m);
    else if (role === 'assistant' && !toolCalls?.length && meaningful(clip(content))) add('decisions', `Answered: ${content}`, m);
  }
  for (const o of input.outcomes) {
    const { plan_delta, next_action, known_risks, delivery_state } = o.outcome;
    if (meaningful(plan_delta)) add('decisions', plan_delta, o);
    if (meaningful(known_risks)) add('openIssues', `Risk: ${known_risks}`, o);
    add('currentPlan', `Next: ${next_action} (delivery ${delivery_state})`, o);
  }
  const previous = input.previous ?? EMPTY_SUMMARY;
  const merged = {} as HistorySummary;
  for (const name of SUMMARY_SECTIONS) {
    const { items, refs } = added[name];
    merged[name] = {
      items: bounded([...previous[name].items, ...items], KEEP[name]),
      sources: rangesOf([...previous[name].sources, ...refs]),
    };
  }
  return merged;
}

const HEADINGS: Record<SummarySectionName, string> = {
  goals: 'Goals',
  decisions: 'Decisions',
  currentPlan: 'Current plan',
  openIssues: 'Open issues',
  toolOutputs: 'Important tool outputs',
};

const rangeText = (r: EventRange) => (r.from === r.to ? `${r.stream}@${r.from}` : `${r.stream}@${r.from}-${r.to}`);

/** The summary as the model reads it: one message standing where the older messages were. */
export function renderSummary(summary: HistorySummary): string {
  const sections = SUMMARY_SECTIONS.map((name) => {
    const { items, sources } = summary[name];
    const cited = sources.length ? ` (from ${sources.map(rangeText).join(', ')})` : '';
    const lines = items.length ? items.map((item) => `- ${item}`) : ['- none'];
    return [`## ${HEADINGS[name]}${cited}`, ...lines].join('\n');
  });
  return ['Summary of the earlier conversation (older messages were compacted into it).', ...sections].join('\n\n');
}

const rendered = new WeakMap<HistorySummary, ChatMessage>();

/** The summary as a message; the same summary object always gives the same message object. */
export function summaryMessage(summary: HistorySummary): ChatMessage {
  let message = rendered.get(summary);
  if (!message) {
    message = { role: 'user', content: renderSummary(summary) };
    rendered.set(summary, message);
  }
  return message;
}

const SECTION_BY_HEADING: [RegExp, SummarySectionName][] = [
  [/^goals?$/, 'goals'],
  [/^decisions?$/, 'decisions'],
  [/^(current )?plan$/, 'currentPlan'],
  [/^open (issues|questions|risks)$|^issues$/, 'openIssues'],
  [/^(important )?tool outputs?$|^tool results?$/, 'toolOutputs'],
];

/**
 * A summary the model wrote (the `model` method), read leniently: `## Heading` or `Heading:` lines
 * start a section, bullets or lines are its items. Every section cites everything that was summarised.
 */
export function parseSummary(text: string, covers: readonly EventRange[]): HistorySummary {
  const items: Record<SummarySectionName, string[]> = { goals: [], decisions: [], currentPlan: [], openIssues: [], toolOutputs: [] };
  let section: SummarySectionName = 'currentPlan';
  for (const raw of stripReasoning(text).split('\n')) {
    const line = raw.trim();
    const heading = /^(?:#{1,6}\s*)?([A-Za-z ]+?)\s*:?\s*$/.exec(line)?.[1]?.toLowerCase();
    const named = heading ? SECTION_BY_HEADING.find(([pattern]) => pattern.test(heading))?.[1] : undefined;
    if (named) {
      section = named;
      continue;
    }
    const item = clip(line.replace(/^([-*•]|\d+[.)])\s+/, ''));
    if (meaningful(item)) items[section].push(item);
  }
  const summary = {} as HistorySummary;
  for (const name of SUMMARY_SECTIONS)
    summary[name] = { items: bounded(items[name], { first: 0, last: KEEP[name].first + KEEP[name].last }), sources: [...covers] };
  return summary;
}

/** What the `model` method sends to be summarised: the earlier summary and the messages it replaces, as text. */
export function transcriptOf(previous: HistorySummary | null, messages: readonly SourcedMessage[]): string {
  const lines = previous ? [renderSummary(previous), ''] : [];
  for (const { message } of messages) {
    const calls = message.toolCalls?.length
      ? ` [calls: ${message.toolCalls.map((c) => `${c.name} ${clip(c.arguments, 120)}`).join('; ')}]`
      : '';
    lines.push(`${message.role}: ${clip(message.content, 1_200)}${calls}`);
  }
  return lines.join('\n');
}
