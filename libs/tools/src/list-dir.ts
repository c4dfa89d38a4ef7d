import { z } from 'zod';
import { LIMITS, ToolContext } from './context';
import { ToolFailureError, ToolOutcome, succeeded } from './outcome';
import { withHandle } from './sandbox/pinned';
import { displayPath, resolveInsideRoot } from './sandbox/resolve-inside-root';
import { WalkEntry, walk } from './walk';

export const ListDirArgs = z.strictObject({
  path: z.string().default('.').describe('directory relative to the project root'),
  depth: z.number().int().min(1).max(3).default(1).describe('how many levels to list (1-3)'),
});
export type ListDirArgs = z.infer<typeof ListDirArgs>;

const suffix: Record<WalkEntry['kind'], string> = { directory: '/', symlink: '@', file: '', other: '' };

/** `ls -F` style: directories end in `/`, symlinks in `@`; node_modules and .git are left out. */
export async function listDirTool(args: ListDirArgs, context: ToolContext): Promise<ToolOutcome> {
  const absolute = await resolveInsideRoot(context.root, args.path);
  const shown = displayPath(context.root, absolute);
  // The directory is held open while it is listed: what was checked is what is listed.
  return withHandle(context.root, absolute, shown, (found) => {
    if (!found)
      throw new ToolFailureError({
        kind: 'NOT_FOUND',
        problem: `'${shown}' does not exist`,
        retry: "list the parent directory (or '.') to find the right name",
      });
    if (!found.info.isDirectory())
      throw new ToolFailureError({
        kind: 'NOT_A_DIRECTORY',
        problem: `'${shown}' is a file`,
        retry: `use read_file on '${shown}', or list_dir its directory`,
      });
    const lines: string[] = [];
    for (const entry of walk(found.fd, args.depth)) {
      if (lines.length === LIMITS.listDirEntries) {
        context.progress(`listed ${lines.length} entries of ${shown} (limit reached)`);
        return succeeded(
          `${lines.join('\n')}\n[truncated after ${lines.length} entries; retry list_dir with a smaller depth or on a subdirectory]`,
          true,
        );
      }
      lines.push(entry.relative + suffix[entry.kind]);
    }
    context.progress(`listed ${lines.length} entries of ${shown}`);
    return succeeded(lines.length > 0 ? lines.join('\n') : `[${shown} is empty]`);
  });
}
