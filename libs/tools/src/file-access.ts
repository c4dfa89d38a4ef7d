import { Stats, lstatSync } from 'node:fs';
import type { ToolContext } from './context';
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

/** The text a file had before a write: the editor's buffer when it holds one of a readable file, else what the disk read gave. */
export async function bufferedOr<T>(context: ToolContext, absolute: string, disk: T): Promise<T | string> {
  if (!context.files || typeof disk !== 'string') return disk;
  return (await context.files.readText(absolute)) ?? disk;
}
