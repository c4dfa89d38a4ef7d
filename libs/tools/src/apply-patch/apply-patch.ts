import { stat, unlink } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../atomic-write';
import { ToolContext } from '../context';
import { ToolFailureError, ToolOutcome, succeeded } from '../outcome';
import { openTextFile } from '../read-file';
import { displayPath, resolveInsideRoot } from '../sandbox/resolve-inside-root';
import { applyHunks } from './apply-hunks';
import { FilePatch, parsePatch } from './parse-patch';

export const ApplyPatchArgs = z.strictObject({
  patch: z.string().min(1).describe("a unified diff ('---'/'+++' headers, '@@' hunks); use '--- /dev/null' to create a file"),
});
export type ApplyPatchArgs = z.infer<typeof ApplyPatchArgs>;

/** A file's content as the patch sees it: what an earlier part of the same patch left, else the disk. `null` = absent. */
type Pending = Map<string, { shown: string; content: string | null }>;

async function currentContent(context: ToolContext, pending: Pending, absolute: string, path: string): Promise<string | null> {
  const planned = pending.get(absolute);
  if (planned) return planned.content;
  if (!(await stat(absolute).catch(() => null))) return null;
  return (await openTextFile(context, path, 'apply_patch')).text;
}

async function plan(context: ToolContext, pending: Pending, file: FilePatch): Promise<string> {
  const source = file.oldPath === null ? null : await resolveInsideRoot(context.root, file.oldPath);
  const target = file.newPath === null ? null : await resolveInsideRoot(context.root, file.newPath);
  const shown = displayPath(context.root, (source ?? target) as string);
  let original: string | null = null;
  if (source === null) {
    if ((await currentContent(context, pending, target as string, file.newPath as string)) !== null) {
      throw new ToolFailureError({
        kind: 'ALREADY_EXISTS',
        problem: `the patch creates '${shown}' (--- /dev/null) but it already exists; nothing was written`,
        retry: `read_file '${shown}' and send a hunk against its current content, or write_file it whole`,
      });
    }
  } else {
    original = await currentContent(context, pending, source, file.oldPath as string);
    if (original === null) {
      throw new ToolFailureError({
        kind: 'NOT_FOUND',
        problem: `the patch edits '${shown}', which does not exist; nothing was written`,
        retry: "check the path with list_dir; to create a new file, use '--- /dev/null' as its old side",
      });
    }
  }
  const next = applyHunks(original, file, shown);
  if (source !== null && source !== target) pending.set(source, { shown, content: null });
  if (target !== null) pending.set(target, { shown: displayPath(context.root, target), content: next });
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
  for (const [absolute, { content }] of pending) if (content !== null) await writeFileAtomic(absolute, content);
  for (const [absolute, { content }] of pending) if (content === null) await unlink(absolute).catch(() => undefined);
  context.progress(`applied the patch to ${pending.size} file${pending.size === 1 ? '' : 's'}`);
  return succeeded(`applied:\n${summary.map((s) => `  ${s}`).join('\n')}`);
}
