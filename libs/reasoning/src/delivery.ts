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

const DELIVERY_LINE = /^\s*(?:[-*•+]\s*)?[*_`]*delivery[*_`]*\s*:\s*(.*)$/im;

/**
 * The delivery verdict of a reply written without a reasoning block: its `Delivery:` line, read by
 * the same rule as the reasoning formats; `null` when there is no such line. A "done" elsewhere in
 * prose is not a verdict.
 */
export function deliveryStatement(text: string): DeliveryState | null {
  const line = DELIVERY_LINE.exec(text);
  return line ? parseDeliveryState(line[1]) : null;
}

const DELIVERY_LINES = new RegExp(DELIVERY_LINE.source, 'gim');

/**
 * Every delivery verdict a reply states anywhere, reasoning blocks included, in order: the strict gate
 * (docs/decisions/0056) reads a reply as `NEEDS_WORK` when any of them says so.
 */
export function deliveryStatements(text: string): DeliveryState[] {
  return [...text.matchAll(DELIVERY_LINES)].flatMap((m) => {
    const state = parseDeliveryState(m[1]);
    return state ? [state] : [];
  });
}
