import { z } from 'zod';
import { LIMITS, ToolContext } from './context';
import { editorText } from './file-access';
import { ToolFailureError, ToolOutcome, succeeded } from './outcome';
import { readHeld, withHandle } from './sandbox/pinned';
import { displayPath, resolveInsideRoot } from './sandbox/resolve-inside-root';
import { byteLength, looksBinary, splitLines, takeBytes } from './text';

export const ReadFileArgs = z
  .strictObject({
    path: z.string().min(1).describe('file path relative to the project root'),
    startLine: z.number().int().min(1).optional().describe('first line to return, 1-based'),
    endLine: z.number().int().min(1).optional().describe('last line to return, inclusive'),
  })
  .refine((a) => a.startLine === undefined || a.endLine === undefined || a.endLine >= a.startLine, {
    message: 'endLine must not be before startLine',
    path: ['endLine'],
  });
export type ReadFileArgs = z.infer<typeof ReadFileArgs>;

const notFound = (shown: string) =>
  new ToolFailureError({
    kind: 'NOT_FOUND',
    problem: `'${shown}' does not exist`,
    retry: 'find the right path with list_dir or search_code, then retry with it',
  });

/**
 * The text of the regular file at `absolute` (a real path inside the root), or null when nothing is
 * there; anything else is the failure that says what to use instead. Read through a handle of the file
 * itself, so what was checked is what is read.
 */
export function readTextInsideRoot(root: string, absolute: string, shown: string, tool: string): string | null {
  return withHandle(root, absolute, shown, (found) => {
    if (!found) return null;
    const { fd, info } = found;
    if (info.isDirectory())
      throw new ToolFailureError({
        kind: 'NOT_A_FILE',
        problem: `'${shown}' is a directory`,
        retry: `use list_dir on '${shown}' to see its files, then ${tool} one of them`,
      });
    if (!info.isFile())
      throw new ToolFailureError({
        kind: 'NOT_A_FILE',
        problem: `'${shown}' is not a regular file`,
        retry: 'retry with the path of a regular file',
      });
    if (info.size > LIMITS.readFileMaxSize) {
      throw new ToolFailureError({
        kind: 'TOO_LARGE',
        problem: `'${shown}' is ${info.size} bytes, over the ${LIMITS.readFileMaxSize}-byte limit`,
        retry: 'use search_code to find the part you need',
      });
    }
    // At most readFileMaxSize bytes: reading synchronously is cheaper than a thread-pool round trip.
    const bytes = readHeld(fd, LIMITS.readFileMaxSize);
    if (looksBinary(bytes))
      throw new ToolFailureError({
        kind: 'BINARY_FILE',
        problem: `'${shown}' is a binary file`,
        retry: 'read a text file instead; binary content cannot be shown',
      });
    return bytes.toString('utf8');
  });
}

/** A regular text file inside the root, or the failure that says what to use instead. */
export async function openTextFile(
  context: ToolContext,
  path: string,
  tool: string,
): Promise<{ absolute: string; shown: string; text: string }> {
  const absolute = await resolveInsideRoot(context.root, path);
  const shown = displayPath(context.root, absolute);
  const text = readTextInsideRoot(context.root, absolute, shown, tool);
  if (text === null) throw notFound(shown);
  // Checked on disk first: an editor's buffer is read only for a file the tool may read.
  return { absolute, shown, text: (await editorText(context, absolute, shown)) ?? text };
}

export async function readFileTool(args: ReadFileArgs, context: ToolContext): Promise<ToolOutcome> {
  const { shown, text } = await openTextFile(context, args.path, 'read_file');
  const lines = splitLines(text);
  const first = args.startLine ?? 1;
  const last = Math.min(args.endLine ?? lines.length, lines.length);
  if (first > Math.max(lines.length, 1)) {
    throw new ToolFailureError({
      kind: 'OUT_OF_RANGE',
      problem: `'${shown}' has ${lines.length} lines; startLine ${first} is past the end`,
      retry: `retry with startLine between 1 and ${Math.max(lines.length, 1)}`,
    });
  }
  const kept: string[] = [];
  let bytes = 0;
  for (let n = first; n <= last; n += 1) {
    const size = byteLength(lines[n - 1]) + 1;
    if (bytes + size > LIMITS.readFileBytes) {
      // One line longer than the whole limit (minified code) is cut rather than dropped.
      if (kept.length === 0)
        return succeeded(
          `${takeBytes(lines[n - 1], LIMITS.readFileBytes)}\n[truncated: line ${n} alone is over the ${LIMITS.readFileBytes}-byte output limit; use search_code to find what you need in it]`,
          true,
        );
      break;
    }
    kept.push(lines[n - 1]);
    bytes += size;
  }
  const shownLast = first + kept.length - 1;
  context.progress(`read ${shown} lines ${first}-${shownLast} of ${lines.length}`);
  const whole = args.startLine === undefined && args.endLine === undefined && kept.length === lines.length;
  const body = whole ? text : kept.join('\n');
  if (shownLast >= last) return succeeded(body);
  const note = `\n[truncated: lines ${first}-${shownLast} of ${lines.length} shown (output limit ${LIMITS.readFileBytes} bytes); retry read_file with startLine=${shownLast + 1} to read on]`;
  return succeeded(body + note, true);
}
