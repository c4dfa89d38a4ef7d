import { z } from 'zod';
import { FileChange } from '@stagecraft/contracts';
import { ToolContext } from '../context';
import { fileChange, opaqueFileChange } from '../file-change';
import { ToolFailureError, ToolOutcome, succeeded } from '../outcome';
import { readTextInsideRoot } from '../read-file';
import { removeInsideRoot, writeInsideRoot } from '../sandbox/pinned';
import { displayPath, resolveWritableInsideRoot } from '../sandbox/resolve-inside-root';
import { refuseRedactedSecrets } from '../redactions';
import { applyHunks } from './apply-hunks';
import { FilePatch, parsePatch } from './parse-patch';

export const ApplyPatchArgs = z.strictObject({
  patch: z.string().min(1).describe("a unified diff ('---'/'+++' headers, '@@' hunks); use '--- /dev/null' to create a file"),
});
export type ApplyPatchArgs = z.infer<typeof ApplyPatchArgs>;

const OPAQUE = Symbol('opaque');
type Before = string | null | typeof OPAQUE;

/**
 * A file's content as the patch sees it: what an earlier part of the same patch left, else the disk
 * (`null` = absent), and what the disk held before the patch, for the change a reader sees.
 */
type Pending = Map<string, { shown: string; content: string | null; before: Before }>;

/** The disk's text of a file the patch touches first; one that is no text (binary, too big) is opaque. */
function diskBefore(context: ToolContext, pending: Pending, absolute: string): Before {
  const planned = pending.get(absolute);
  if (planned) return planned.before;
  try {
    return readTextInsideRoot(context.root, absolute, displayPath(context.root, absolute), 'apply_patch');
  } catch {
    return OPAQUE;
  }
}

function changeOf({ shown, content, before }: { shown: string; content: string | null; before: Before }): FileChange | null {
  if (before === null && content === null) return null;
  return before === OPAQUE ? opaqueFileChange(shown) : fileChange(shown, before, content);
}

function currentContent(context: ToolContext, pending: Pending, absolute: string): string | null {
  const planned = pending.get(absolute);
  if (planned) return planned.content;
  return readTextInsideRoot(context.root, absolute, displayPath(context.root, absolute), 'apply_patch');
}

async function plan(context: ToolContext, pending: Pending, file: FilePatch): Promise<string> {
  // Both sides are written (an edit rewrites its file, a rename deletes its source), so both must be writable.
  const source = file.oldPath === null ? null : await resolveWritableInsideRoot(context.root, file.oldPath);
  const target = file.newPath === null ? null : await resolveWritableInsideRoot(context.root, file.newPath);
  const shown = displayPath(context.root, (source ?? target) as string);
  let original: string | null = null;
  if (source === null) {
    if (currentContent(context, pending, target as string) !== null) {
      throw new ToolFailureError({
        kind: 'ALREADY_EXISTS',
        problem: `the patch creates '${shown}' (--- /dev/null) but it already exists; nothing was written`,
        retry: `read_file '${shown}' and send a hunk against its current content, or write_file it whole`,
      });
    }
  } else {
    original = currentContent(context, pending, source);
    if (original === null) {
      throw new ToolFailureError({
        kind: 'NOT_FOUND',
        problem: `the patch edits '${shown}', which does not exist; nothing was written`,
        retry: "check the path with list_dir; to create a new file, use '--- /dev/null' as its old side",
      });
    }
  }
  const next = applyHunks(original, file, shown);
  if (next !== null) refuseRedactedSecrets(shown, original, next);
  if (source !== null && source !== target) pending.set(source, { shown, content: null, before: diskBefore(context, pending, source) });
  if (target !== null)
    pending.set(target, { shown: displayPath(context.root, target), content: next, before: diskBefore(context, pending, target) });
  const kind = source === null ? 'create' : target === null ? 'delete' : 'edit';
  return `${kind} ${target === null ? shown : displayPath(context.root, target)} (${file.hunks.length} hunk${file.hunks.length === 1 ? '' : 's'})`;
}

/** All or nothing: every hunk of every file is checked in memory before the first byte is written. */
export async function applyPatchTool(args: ApplyPatchArgs, context: ToolContext): Promise<ToolOutcome> {
  const files = parsePatch(args.patch);
  const pending: Pending = new Map();
  const summary: string[] = [];
  for (const file of files) {
    summary.push(await plan(context, pending, file));
    context.progress(`checked ${summary[summary.length - 1]}`);
  }
  // Writes before deletions, so a failing write never leaves a renamed file in neither place.
  for (const [absolute, { shown, content }] of pending) if (content !== null) writeInsideRoot(context.root, absolute, shown, content);
  for (const [absolute, { shown, content }] of pending) if (content === null) removeInsideRoot(context.root, absolute, shown);
  context.progress(`applied the patch to ${pending.size} file${pending.size === 1 ? '' : 's'}`);
  const written = [...pending.values()];
  const changes = [...written.filter((p) => p.content !== null), ...written.filter((p) => p.content === null)]
    .map(changeOf)
    .filter((change): change is FileChange => change !== null);
  return { ...succeeded(`applied:\n${summary.map((s) => `  ${s}`).join('\n')}`), changes };
}
