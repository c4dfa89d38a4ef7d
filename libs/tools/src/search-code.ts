import { stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { LIMITS, ToolContext } from './context';
import { ToolFailureError, ToolOutcome, succeeded } from './outcome';
import { readHeld, withHandle } from './sandbox/pinned';
import { displayPath, resolveInsideRoot } from './sandbox/resolve-inside-root';
import { lineMatcher } from './search-pattern';
import { looksBinary, splitLines } from './text';
import { GitIgnore, listProjectFiles } from './index/scan';

export const SearchCodeArgs = z.strictObject({
  query: z
    .string()
    .min(1)
    .describe('text to find, or with regex=true a regular expression in RE2 syntax (no backreferences or lookaround; (?i) ignores case)'),
  path: z.string().default('.').describe('file or directory to search, relative to the project root'),
  regex: z.boolean().default(false),
  maxResults: z.number().int().min(1).max(1000).default(100),
});
export type SearchCodeArgs = z.infer<typeof SearchCodeArgs>;

/** How much one search may read and for how long; past either it stops and says where. */
export interface SearchBudget {
  bytes: number;
  ms: number;
}

/**
 * Linear-time matching bounds each line, not a whole tree: a search over a large monorepo could
 * still hold the service for seconds, so it has a budget and hands the event loop back every few ms.
 */
export const SEARCH_BUDGET: SearchBudget = { bytes: 256 * 1024 * 1024, ms: 15_000 };
const SLICE_MS = 20;

/** A named file is searched as asked; a directory's files are those `.gitignore` keeps (dependencies and build output never). */
async function filesUnder(root: string, absolute: string): Promise<string[]> {
  const info = await stat(absolute).catch(() => null);
  if (!info) return [];
  if (info.isFile()) return [absolute];
  const under = relative(root, absolute).split(sep).join('/');
  return (await listProjectFiles(root, new GitIgnore(root), under)).map((file) => join(root, file));
}

/**
 * A listed file's bytes, read through handles like read_file's (a directory flipped to a symlink after
 * the listing is refused, never followed out of the root); null when it is gone or not a regular file.
 */
function heldFile(root: string, file: string): Buffer | 'too large' | null {
  try {
    return withHandle(root, file, displayPath(root, file), (found) => {
      if (!found?.info.isFile()) return null;
      return found.info.size > LIMITS.searchFileMaxSize ? 'too large' : readHeld(found.fd, LIMITS.searchFileMaxSize);
    });
  } catch {
    return null;
  }
}

/** A line-by-line search in pure Node: `path:line: text`, files in sorted order, binaries and large files skipped. */
export async function searchCodeTool(args: SearchCodeArgs, context: ToolContext, budget = SEARCH_BUDGET): Promise<ToolOutcome> {
  const matches = lineMatcher(args.query, args.regex);
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
  const started = performance.now();
  let sliceStarted = started;
  let searched = 0;
  let bytesRead = 0;
  let cutShort: string | null = null;
  search: for (const file of files) {
    const held = heldFile(context.root, file);
    if (held === 'too large') continue;
    if (held && bytesRead + held.length > budget.bytes) {
      cutShort = `read budget of ${budget.bytes} bytes spent`;
      break;
    }
    const bytes = held;
    bytesRead += bytes?.length ?? 0;
    if (!bytes || looksBinary(bytes)) continue;
    searched += 1;
    const lines = splitLines(bytes.toString('utf8'));
    for (let i = 0; i < lines.length; i += 1) {
      if ((i & 255) === 0 && performance.now() - sliceStarted > SLICE_MS) {
        if (performance.now() - started > budget.ms) {
          cutShort = `time budget of ${budget.ms} ms spent in ${displayPath(context.root, file)}`;
          break search;
        }
        await nextTurn();
        sliceStarted = performance.now();
      }
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
  context.progress(`searched ${searched} files, ${results.length} matches${cutShort ? ` (cut short: ${cutShort})` : ''}`);
  const found =
    results.length > 0 ? results.join('\n') : `no matches for ${JSON.stringify(args.query)} in '${shown}' (${searched} files searched)`;
  if (cutShort === null) return succeeded(found);
  return succeeded(
    `${found}\n[search cut short after ${searched} of ${files.length} files (${cutShort}): the rest was not searched; narrow the path or the query]`,
    true,
  );
}
