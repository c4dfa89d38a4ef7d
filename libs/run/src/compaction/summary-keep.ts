import { EventRange, SUMMARY_SECTIONS, SummarySectionName } from '@stagecraft/contracts';
import { clip } from './clip';

/** An item of a summary section and the events it came from; null when a summary that did not say carried it over. */
export interface Kept {
  text: string;
  origin: EventRange | null;
}
export type KeptSections = Record<SummarySectionName, Kept[]>;

const firstOfEach = <T>(items: readonly T[], key: (item: T) => string): T[] =>
  items.filter((item, i) => key(item).length > 0 && items.findIndex((other) => key(other) === key(item)) === i);

/** Version 1 (logs written before version 2), by count: the oldest goals and the latest of the rest. */
const KEEP_V1: Record<SummarySectionName, { first: number; last: number }> = {
  goals: { first: 2, last: 4 },
  decisions: { first: 0, last: 10 },
  currentPlan: { first: 0, last: 2 },
  openIssues: { first: 0, last: 6 },
  toolOutputs: { first: 0, last: 10 },
};

export function keepByCount(name: SummarySectionName, items: readonly string[]): string[] {
  const { first, last } = KEEP_V1[name];
  const unique = firstOfEach(items, (item) => item);
  if (unique.length <= first + last) return unique;
  return [...unique.slice(0, first), ...unique.slice(unique.length - last)];
}

// Version 2. Its numbers are part of the rule a replay re-decides: changing them is a version 3.

/**
 * Characters the items that may go (everything but goals, answers and the plan) may take together: about
 * a quarter of the tokens that trigger a compaction (four characters a token), so that a summary never
 * fills what it was made to free; at most 16k characters, at least 2k.
 */
export const restBudgetChars = (maxTokens = Infinity): number => Math.max(2_000, Math.min(16_000, Math.floor(maxTokens)));
/** What an item is cut to before anything is dropped. */
const SHORT_CHARS = 120;
/** The plan is superseded by each step: only the latest steps matter. */
const PLAN_ITEMS = 2;
/** Tools whose output can be read again from the project (the names as of version 2, fixed). */
const REREADABLE = new Set([
  'read_file',
  'list_dir',
  'search_code',
  'find_symbol',
  'list_entry_points',
  'search_index',
  'read_tool_output',
]);
const FAILED = /\b(error|errors|fail|failed|failing|failure|exception|denied|refused|not found|cannot|panic)\b/i;

/** Every turn's goal and its answers stay, whatever the size. */
export const isProtected = (name: SummarySectionName, text: string): boolean =>
  name === 'goals' || (name === 'decisions' && text.startsWith('Answered:'));

/** Higher is kept longer: open issues, then decisions and failures, then what changed, then what can be read again. */
function importance(name: SummarySectionName, text: string): number {
  if (name === 'openIssues') return 4;
  if (name === 'decisions') return 3;
  const [call, output = ''] = text.split(' → ', 2);
  if (FAILED.test(output)) return 3;
  return REREADABLE.has(call.split(' ', 1)[0]) ? 1 : 2;
}

/**
 * Version 2: every goal and answer, the latest plan steps, and the rest while it fits the budget. Over
 * budget, the least important items are first cut short, then dropped: lowest importance first, the
 * oldest first within it. Deterministic: the same sections always keep the same items.
 */
export function keepByImportance(sections: KeptSections, budget = restBudgetChars()): KeptSections {
  const kept = {} as KeptSections;
  for (const name of SUMMARY_SECTIONS) kept[name] = firstOfEach(sections[name], (item) => item.text).map((item) => ({ ...item }));
  kept.currentPlan = kept.currentPlan.slice(-PLAN_ITEMS);
  const candidates = SUMMARY_SECTIONS.flatMap((name, order) =>
    name === 'currentPlan'
      ? []
      : kept[name].flatMap((item, index) =>
          isProtected(name, item.text) ? [] : [{ item, name, index, order, rank: importance(name, item.text) }],
        ),
  ).sort((a, b) => a.rank - b.rank || a.index - b.index || a.order - b.order);
  let size = candidates.reduce((sum, c) => sum + c.item.text.length, 0);
  for (const c of candidates) {
    if (size <= budget) break;
    const short = clip(c.item.text, SHORT_CHARS);
    size -= c.item.text.length - short.length;
    c.item.text = short;
  }
  const dropped = new Set<Kept>();
  for (const c of candidates) {
    if (size <= budget) break;
    dropped.add(c.item);
    size -= c.item.text.length;
  }
  for (const name of SUMMARY_SECTIONS) kept[name] = kept[name].filter((item) => !dropped.has(item));
  return kept;
}
