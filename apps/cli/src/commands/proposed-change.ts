import { readFileSync, statSync } from 'node:fs';
import { LIMITS, fileChange, resolveInsideRoot } from '@stagecraft/tools';
import { Paint, renderChange, renderDiff } from './diff-view';

/** What an approval names: the tool call that waits, with its arguments as the model sent them. */
export interface ProposedCall {
  tool?: string;
  arguments?: Record<string, unknown>;
}

/** The file's text now, or null when it is not there (or cannot be read inside the root): the write then shows as a creation. */
async function textOnDisk(root: string, path: string): Promise<string | null> {
  try {
    const absolute = await resolveInsideRoot(root, path);
    // As the tool reads it: a file over its read limit is no text to diff.
    if (statSync(absolute).size > LIMITS.readFileMaxSize) return null;
    return readFileSync(absolute, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The whole change a write that waits for approval would make, as a person reads it before answering:
 * a patch as it was sent, coloured; a whole-file write as its diff against the file on disk now. Nothing
 * for other calls. The arguments are the model's: only strings are read, and nothing is clipped.
 */
export async function proposedChangeLines(call: ProposedCall, root: string | undefined, style: Paint): Promise<string[]> {
  const args = call.arguments ?? {};
  if (call.tool === 'apply_patch' && typeof args['patch'] === 'string') {
    return [`  proposed patch:`, ...renderDiff(args['patch'], style).map((line) => `    ${line}`)];
  }
  if (call.tool === 'write_file' && typeof args['path'] === 'string' && typeof args['content'] === 'string') {
    const before = root ? await textOnDisk(root, args['path']) : null;
    return ['  proposed change:', ...renderChange(fileChange(args['path'], before, args['content']), style)];
  }
  return [];
}
