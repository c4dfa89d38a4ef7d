/** Display helpers: pure, so the table and the run page say the same thing the same way. */
export function duration(ms: number | undefined | null): string {
  if (ms === undefined || ms === null || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s - m * 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function count(n: number | undefined | null): string {
  if (n === undefined || n === null) return '–';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function usd(cost: number | undefined | null): string {
  if (cost === undefined || cost === null) return '–';
  return cost < 0.01 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

export function share(fraction: number | undefined | null): string {
  if (fraction === undefined || fraction === null || !Number.isFinite(fraction)) return '–';
  return `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
}

/** The time of day, and the date when it is not `today` (both taken as arguments: no clock here). */
export function when(iso: string | undefined, today: string): string {
  if (!iso) return '–';
  const [date, rest = ''] = iso.split('T');
  const time = rest.slice(0, 8);
  return date === today ? time : `${date} ${time}`;
}

/** Long enough to tell apart runs that share a prefix (a workflow's agents): the head and the tail. */
export const shortId = (id: string): string => (id.length > 18 ? `${id.slice(0, 8)}…${id.slice(-8)}` : id);

/** The kind of each line of a unified diff, for colouring. */
export type DiffLineKind = 'file' | 'hunk' | 'add' | 'del' | 'context' | 'note';
export function diffLines(diff: string): { kind: DiffLineKind; text: string }[] {
  const lines = diff.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((text) => {
    if (text.startsWith('+++ ') || text.startsWith('--- ') || text.startsWith('Index: ') || text.startsWith('===='))
      return { kind: 'file', text };
    if (text.startsWith('@@')) return { kind: 'hunk', text };
    if (text.startsWith('+')) return { kind: 'add', text };
    if (text.startsWith('-')) return { kind: 'del', text };
    if (text.startsWith('\\')) return { kind: 'note', text };
    return { kind: 'context', text };
  });
}
