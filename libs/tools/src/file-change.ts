import { FILE_CHANGE_DIFF_MAX_CHARS, FileChange } from '@stagecraft/contracts';
import { FILE_HEADERS_ONLY, StructuredPatch, formatPatch, structuredPatch } from 'diff';

/** Three lines of context, as `diff -u` and git show. */
const CONTEXT_LINES = 3;
/**
 * Past this many edits the line diff gives up and the change is shown as the whole old file out and the
 * whole new file in: the diff's cost grows with its edits, and a rewrite of a big file is read as one anyway.
 */
const MAX_EDIT_LENGTH = 1_000;
const NO_FINAL_NEWLINE = '\\ No newline at end of file';

const sideLines = (text: string, mark: '-' | '+'): string[] => {
  if (text === '') return [];
  const lines = text.split('\n');
  const finalNewline = lines[lines.length - 1] === '';
  if (finalNewline) lines.pop();
  const marked = lines.map((line) => `${mark}${line}`);
  return finalNewline ? marked : [...marked, NO_FINAL_NEWLINE];
};

/** The whole old text out and the whole new text in, as one hunk. */
function replacement(oldName: string, newName: string, before: string, after: string): StructuredPatch {
  const removed = sideLines(before, '-');
  const added = sideLines(after, '+');
  const count = (lines: string[]) => lines.filter((l) => l !== NO_FINAL_NEWLINE).length;
  const oldLines = count(removed);
  const newLines = count(added);
  return {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [{ oldStart: 1, oldLines, newStart: 1, newLines, lines: [...removed, ...added] }],
  };
}

/** The diff cut at the last whole line that fits, so a reader never sees half a line. */
function capped(diff: string): { diff: string; diffTruncated?: true } {
  if (diff.length <= FILE_CHANGE_DIFF_MAX_CHARS) return { diff };
  const cut = diff.lastIndexOf('\n', FILE_CHANGE_DIFF_MAX_CHARS - 1);
  return { diff: diff.slice(0, cut + 1), diffTruncated: true };
}

/**
 * What a write did to one file: `before` null means it was created, `after` null that it was deleted.
 * The diff names `a/<path>` and `b/<path>` (`/dev/null` for the absent side) like git's, so any reader of
 * unified diffs shows it; the line counts are the diff's whole, even when the text is cut.
 */
export function fileChange(path: string, before: string | null, after: string | null): FileChange {
  const oldName = before === null ? '/dev/null' : `a/${path}`;
  const newName = after === null ? '/dev/null' : `b/${path}`;
  const patch =
    structuredPatch(oldName, newName, before ?? '', after ?? '', undefined, undefined, {
      context: CONTEXT_LINES,
      maxEditLength: MAX_EDIT_LENGTH,
    }) ?? replacement(oldName, newName, before ?? '', after ?? '');
  const lines = patch.hunks.flatMap((hunk) => hunk.lines);
  return {
    path,
    kind: before === null ? 'created' : after === null ? 'deleted' : 'modified',
    added: lines.filter((l) => l.startsWith('+')).length,
    removed: lines.filter((l) => l.startsWith('-')).length,
    ...capped(formatPatch(patch, FILE_HEADERS_ONLY)),
  };
}

/**
 * A replaced file whose old content cannot be shown as text (binary, or over the read limit): git's
 * "Binary files differ" line stands in for the hunks, and no lines are counted.
 */
export function opaqueFileChange(path: string): FileChange {
  return {
    path,
    kind: 'modified',
    added: 0,
    removed: 0,
    diff: `--- a/${path}\n+++ b/${path}\nBinary files a/${path} and b/${path} differ\n`,
  };
}

/** A change whose diff was rewritten (secrets scrubbed, which can lengthen it), held to the same cap again. */
export function withDiff(change: FileChange, diff: string): FileChange {
  return { ...change, ...capped(diff) };
}
