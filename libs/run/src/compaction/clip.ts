import { stripReasoning } from '@stagecraft/reasoning';

export const ITEM_CHARS = 240;

/** One line, no reasoning block, at most `max` characters. */
export function clip(text: string, max = ITEM_CHARS): string {
  const line = stripReasoning(text)
    .replace(/<\/?ide_reasoning>/gi, '')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

const TRIVIAL = new Set(['', 'none', 'n/a', 'na', '-', 'nothing', 'no change', 'unchanged']);
export const meaningful = (text: string | undefined): text is string =>
  text !== undefined && !TRIVIAL.has(text.trim().toLowerCase().replace(/\.$/, ''));
