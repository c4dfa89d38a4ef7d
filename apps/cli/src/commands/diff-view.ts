import type { FileChange, RunCost } from '@stagecraft/contracts';

/** How text is styled on the way to a terminal; every style is the identity when colour is off. */
export interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

const sgr = (on: number, off: number) => (text: string) => `\x1b[${on}m${text}\x1b[${off}m`;
const plain = (text: string) => text;

export function paint(colour: boolean): Paint {
  if (!colour) return { bold: plain, dim: plain, red: plain, green: plain, cyan: plain };
  return { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), cyan: sgr(36, 39) };
}

/** Colour only on a terminal, and never when NO_COLOR is set to anything (no-color.org). */
export const wantsColour = (out: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean =>
  Boolean(out.isTTY) && !env['NO_COLOR'];

/**
 * File text and model text are hostile: an escape sequence in them would drive the terminal (retitle it,
 * rewrite earlier lines). Control characters other than tab and newline are shown as `�`.
 */
export const printable = (text: string): string => text.replace(/\r\n/g, '\n').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '\uFFFD');

/** The most lines of one diff printed while a run is followed; `runs show --diffs` prints them all. */
export const DIFF_LINES_SHOWN = 40;

export interface DiffClip {
  maxLines: number;
  /** Named in the line that says how many lines were left out. */
  runId: string;
}

/** A unified diff as a terminal shows it: bold file headers, cyan hunk headers, green additions, red removals. */
export function renderDiff(diff: string, style: Paint, clip?: DiffClip): string[] {
  const lines = printable(diff).split('\n');
  if (lines.at(-1) === '') lines.pop();
  const header = (i: number) =>
    (lines[i].startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) || (lines[i].startsWith('+++ ') && lines[i - 1]?.startsWith('--- '));
  const styled = lines.map((line, i) => {
    if (header(i)) return style.bold(line);
    if (line.startsWith('@@')) return style.cyan(line);
    if (line.startsWith('+')) return style.green(line);
    if (line.startsWith('-')) return style.red(line);
    if (line.startsWith('\\') || line.startsWith('Binary files ')) return style.dim(line);
    return line;
  });
  if (!clip || styled.length <= clip.maxLines) return styled;
  const left = styled.length - clip.maxLines;
  return [
    ...styled.slice(0, clip.maxLines),
    style.dim(`… ${left} more line${left === 1 ? '' : 's'} not shown: stagecraft runs show ${clip.runId} --diffs`),
  ];
}

/** `path +N −M (kind)`, the line a change is known by. */
export const changeLine = (change: Pick<FileChange, 'path' | 'kind' | 'added' | 'removed'>, style: Paint): string =>
  `${style.bold(printable(change.path))} ${style.green(`+${change.added}`)} ${style.red(`−${change.removed}`)}${change.kind === 'modified' ? '' : ` (${change.kind})`}`;

/** One change of a write: its line, then its diff (clipped when asked), and a note when the recorded diff was cut. */
export function renderChange(change: FileChange, style: Paint, clip?: DiffClip): string[] {
  return [
    `  ✎ ${changeLine(change, style)}`,
    ...renderDiff(change.diff, style, clip).map((line) => `    ${line}`),
    ...(change.diffTruncated ? [`    ${style.dim('… the recorded diff ends here (cut at its size limit)')}`] : []),
  ];
}

export type ChangedFile = Pick<FileChange, 'path' | 'kind' | 'added' | 'removed'>;

/**
 * Every file a run's writes changed, once, in the order first changed: the lines added and removed
 * summed over its writes; created (or deleted) when the run created (or deleted) it, and a file the run
 * created and then deleted is left out.
 */
export function changedFiles(changes: readonly FileChange[]): ChangedFile[] {
  const byPath = new Map<string, ChangedFile & { first: FileChange['kind'] }>();
  for (const change of changes) {
    const seen = byPath.get(change.path);
    if (!seen) {
      byPath.set(change.path, { path: change.path, kind: change.kind, added: change.added, removed: change.removed, first: change.kind });
      continue;
    }
    seen.added += change.added;
    seen.removed += change.removed;
    seen.kind = change.kind === 'deleted' ? 'deleted' : seen.first === 'created' ? 'created' : 'modified';
  }
  return [...byPath.values()]
    .filter((file) => !(file.first === 'created' && file.kind === 'deleted'))
    .map(({ path, kind, added, removed }) => ({ path, kind, added, removed }));
}

/** What a run's model calls used, as `--json` gives it: cached tokens are part of the input tokens. */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /** At the memory service's prices; absent when the runs view could not say. */
  cost?: RunCost;
}

/** The lines a followed run closes with before its tokens and cost: the files it changed. */
export function changedFilesLines(files: readonly ChangedFile[], style: Paint): string[] {
  if (files.length === 0) return [];
  return [`changed ${files.length} file${files.length === 1 ? '' : 's'}:`, ...files.map((file) => `  ${changeLine(file, style)}`)];
}
