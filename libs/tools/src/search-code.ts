import { readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { z } from 'zod';
import { LIMITS, ToolContext } from './context';
import { ToolFailureError, ToolOutcome, succeeded } from './outcome';
import { displayPath, resolveInsideRoot } from './sandbox/resolve-inside-root';
import { looksBinary, splitLines } from './text';
import { GitIgnore, listProjectFiles } from './index/scan';

export const SearchCodeArgs = z.strictObject({
  query: z.string().min(1).describe('text to find (or a JavaScript regular expression when regex is true)'),
  path: z.string().default('.').describe('file or directory to search, relative to the project root'),
  regex: z.boolean().default(false),
  maxResults: z.number().int().min(1).max(1000).default(100),
});
export type SearchCodeArgs = z.infer<typeof SearchCodeArgs>;

function matcher(args: SearchCodeArgs): (line: string) => boolean {
  if (!args.regex) return (line) => line.includes(args.query);
  try {
    const pattern = new RegExp(args.query);
    return (line) => pattern.test(line);
  } catch (error) {
    throw new ToolFailureError({
      kind: 'INVALID_PATTERN',
      problem: `'${args.query}' is not a valid regular expression: ${(error as Error).message}`,
      retry: 'fix the pattern, or retry with regex=false to search for the literal text',
    });
  }
}

/** A named file is searched as asked; a directory's files are those `.gitignore` keeps (dependencies and build output never). */
async function filesUnder(root: string, absolute: string): Promise<string[]> {
  const info = await stat(absolute).catch(() => null);
  if (!info) return [];
  if (info.isFile()) return [absolute];
  const under = relative(root, absolute).split(sep).join('/');
  return (await listProjectFiles(root, new GitIgnore(root), under)).map((file) => join(root, file));
}

/** A line-by-line search in pure Node: `path:line: text`, files in sorted order, binaries and large files skipped. */
export async function searchCodeTool(args: SearchCodeArgs, context: ToolContext): Promise<ToolOutcome> {
  const matches = matcher(args);
  const absolute = await resolveInsideRoot(context.root, args.path);
  const shown = displayPath(context.root, absolute);
  const files = await filesUnder(context.root, absolute);
  if (files.length === 0 && !(await stat(absolute).catch(() => null))) {
    throw new ToolFailureError({
      kind: 'NOT_FOUND',
      problem: `'${shown}' does not exist`,
      retry: "retry with path '.' or a directory that list_dir shows",
    });
  }
  const results: string[] = [];
  let searched = 0;
  for (const file of files) {
    const size = (await stat(file).catch(() => null))?.size ?? Number.POSITIVE_INFINITY;
    const bytes = size <= LIMITS.searchFileMaxSize ? await readFile(file).catch(() => null) : null;
    if (!bytes || looksBinary(bytes)) continue;
    searched += 1;
    const lines = splitLines(bytes.toString('utf8'));
    for (let i = 0; i < lines.length; i += 1) {
      if (!matches(lines[i])) continue;
      if (results.length === args.maxResults) {
        context.progress(`stopped after ${results.length} matches in ${searched} files`);
        return succeeded(
          `${results.join('\n')}\n[truncated at maxResults=${args.maxResults}; more matches exist: narrow the query or path, or raise maxResults]`,
          true,
        );
      }
      results.push(`${displayPath(context.root, file)}:${i + 1}: ${lines[i].trim().slice(0, LIMITS.searchLineChars)}`);
    }
  }
  context.progress(`searched ${searched} files, ${results.length} matches`);
  return succeeded(
    results.length > 0 ? results.join('\n') : `no matches for ${JSON.stringify(args.query)} in '${shown}' (${searched} files searched)`,
  );
}
