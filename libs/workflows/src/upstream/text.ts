/** A fence longer than any backtick run in the text, so quoted output cannot close it early. */
export function fenced(text: string, info = 'text'): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

/** Keeps the head of a long text and says how much was left out, so the cut is visible to the model. */
export function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters not shown]`;
}

export const bullets = (lines: readonly string[]): string => lines.map((line) => `- ${line}`).join('\n');

export const firstLine = (text: string): string => text.trim().split('\n', 1)[0];
