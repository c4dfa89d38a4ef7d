import { DeliveryState } from '@stagecraft/contracts';

/** `DONE` or `NEEDS_WORK` at the start of the value, in any case, with `_`, `-` or a space, quotes or bold around it. */
export function parseDeliveryState(value: string): DeliveryState | null {
  const word = value.replace(/^[\s`*_"']+/, '');
  if (/^done\b/i.test(word)) return 'DONE';
  if (/^needs[\s_-]*work\b/i.test(word)) return 'NEEDS_WORK';
  return null;
}

const LIST_MARKER = /^\s*(?:[-*•+]|\d+[.)])\s+/;

/**
 * A section as one line: runs of spaces collapsed and lines joined with `; `. A list written over
 * several lines loses its markers; a single line is kept as written.
 */
export function oneLine(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line.length > 0);
  if (lines.length === 1) return lines[0];
  // A line that already ends in punctuation needs no extra separator.
  return lines
    .map((line) => line.replace(LIST_MARKER, ''))
    .reduce((joined, line) => (joined === '' ? line : `${joined}${/[;,.:]$/.test(joined) ? ' ' : '; '}${line}`), '');
}
