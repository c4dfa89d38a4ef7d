import { Stats } from 'node:fs';
import { z } from 'zod';
import { ToolContext } from './context';
import { REDACTION_MARK } from '@stagecraft/sandbox';
import { bufferedOr, writeChecked } from './file-access';
import { fileChange, opaqueFileChange } from './file-change';
import { ToolFailureError, ToolOutcome, succeeded } from './outcome';
import { readTextInsideRoot } from './read-file';
import { refuseRedactedSecrets } from './redactions';
import { displayPath, resolveWritableInsideRoot } from './sandbox/resolve-inside-root';
import { byteLength } from './text';

export const WriteFileArgs = z.strictObject({
  path: z.string().min(1).describe('file path relative to the project root; missing parent directories are created'),
  content: z.string().describe('the complete new content of the file'),
});
export type WriteFileArgs = z.infer<typeof WriteFileArgs>;

export async function writeFileTool(args: WriteFileArgs, context: ToolContext): Promise<ToolOutcome> {
  const absolute = await resolveWritableInsideRoot(context.root, args.path);
  const shown = displayPath(context.root, absolute);
  const check = (existing: Stats | undefined) => {
    if (existing && !existing.isFile()) {
      throw new ToolFailureError({
        kind: 'NOT_A_FILE',
        problem: `'${shown}' exists and is not a regular file`,
        retry: 'choose a file path; write_file never replaces a directory',
      });
    }
  };
  const disk = textBefore(context.root, absolute, shown);
  const before = await bufferedOr(context, absolute, shown, disk, OPAQUE);
  // A file that could not be read is read again here, so that its failure is the one the model sees.
  if (args.content.includes(REDACTION_MARK))
    refuseRedactedSecrets(shown, disk === OPAQUE ? readTextInsideRoot(context.root, absolute, shown, 'write_file') : disk, args.content);
  const replaced = await writeChecked(context, absolute, shown, args.content, check);
  context.progress(`wrote ${shown}`);
  const change = before === OPAQUE ? opaqueFileChange(shown) : fileChange(shown, replaced ? (before ?? '') : null, args.content);
  return { ...succeeded(`wrote ${byteLength(args.content)} bytes to ${shown} (${replaced ? 'replaced' : 'created'})`), changes: [change] };
}

const OPAQUE = Symbol('opaque');

/**
 * The file's text before the write, for the diff a reader sees; a file that is no text (binary, too big,
 * a directory) or cannot be read is opaque here, and the write's own checks decide what happens to it.
 */
function textBefore(root: string, absolute: string, shown: string): string | null | typeof OPAQUE {
  try {
    return readTextInsideRoot(root, absolute, shown, 'write_file');
  } catch {
    return OPAQUE;
  }
}
