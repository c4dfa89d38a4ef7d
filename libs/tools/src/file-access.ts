import { Stats, lstatSync } from 'node:fs';
import { LIMITS, type ToolContext } from './context';
import { ToolFailureError } from './outcome';
import { writeInsideRoot } from './sandbox/pinned';

/**
 * Writes a checked path: on disk through the pinned parent directory, or through the editor when the
 * context has one (docs/decisions/0061). Either way the same checks run first. Answers whether a file
 * was replaced.
 */
export async function writeChecked(
  context: ToolContext,
  absolute: string,
  shown: string,
  content: string,
  check: (existing: Stats | undefined) => void,
): Promise<boolean> {
  if (!context.files) return writeInsideRoot(context.root, absolute, shown, content, { check });
  const existing = lstatSync(absolute, { throwIfNoEntry: false });
  // The editor follows links; the pinned write would not, so neither is a link written through here.
  if (existing?.isSymbolicLink())
    throw new ToolFailureError({
      kind: 'NOT_A_FILE',
      problem: `'${shown}' is a symbolic link`,
      retry: 'write the file it points to instead',
    });
  check(existing);
  await context.files.writeText(absolute, content);
  return existing !== undefined;
}

/**
 * The editor's text of a file the tool has checked on disk, held to the same size limit as the disk's (the
 * editor's reply is input like any other: a buffer may be far larger than the file); null when it has none.
 */
export async function editorText(context: ToolContext, absolute: string, shown: string): Promise<string | null> {
  const text = context.files ? await context.files.readText(absolute) : null;
  if (text !== null && Buffer.byteLength(text) > LIMITS.readFileMaxSize)
    throw new ToolFailureError({
      kind: 'TOO_LARGE',
      problem: `the editor's text of '${shown}' is over the ${LIMITS.readFileMaxSize}-byte limit`,
      retry: 'use search_code to find the part you need',
    });
  return text;
}

/**
 * The text a file had before a write: the editor's buffer when it holds one of a readable file, else what the
 * disk read gave; `tooLarge` when the buffer is over the limit (the write goes on, its diff cannot be shown).
 */
export async function bufferedOr<T>(context: ToolContext, absolute: string, shown: string, disk: T, tooLarge: T): Promise<T | string> {
  if (!context.files || typeof disk !== 'string') return disk;
  try {
    return (await editorText(context, absolute, shown)) ?? disk;
  } catch (error) {
    if (error instanceof ToolFailureError && error.failure.kind === 'TOO_LARGE') return tooLarge;
    throw error;
  }
}
