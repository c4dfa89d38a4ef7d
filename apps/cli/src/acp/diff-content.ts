import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import type { FileChange } from '@stagecraft/contracts';
import { applyPatch, parsePatch, reversePatch } from 'diff';

/** Reads a file as it is now; null when it is gone. */
export type ReadNow = (absolutePath: string) => Promise<string | null>;

export const readFromDisk: ReadNow = (path) => readFile(path, 'utf8').catch(() => null);

/**
 * What a write did to one file, as ACP `diff` content: the file after the call (read now) and before it
 * (the recorded unified diff applied in reverse). When that cannot be rebuilt (the diff was cut, the file
 * changed since), the unified diff itself goes as text: the editor still shows what changed.
 */
export async function diffContent(projectRoot: string, change: FileChange, readNow: ReadNow): Promise<ToolCallContent> {
  const path = isAbsolute(change.path) ? change.path : join(projectRoot, change.path);
  const asText: ToolCallContent = {
    type: 'content',
    content: { type: 'text', text: `${change.diff}${change.diffTruncated ? '\n… (diff cut)' : ''}` },
  };
  if (change.diffTruncated) return asText;
  const now = change.kind === 'deleted' ? '' : await readNow(path);
  if (now === null) return asText;
  if (change.kind === 'created') return { type: 'diff', path, oldText: null, newText: now };
  const before = beforeOf(now, change.diff);
  return before === null ? asText : { type: 'diff', path, oldText: before, newText: now };
}

/** The text before a recorded diff: the diff applied in reverse to the text after it; null when it does not apply. */
export function beforeOf(after: string, diff: string): string | null {
  try {
    const [patch] = parsePatch(diff);
    if (!patch) return null;
    const before = applyPatch(after, reversePatch(patch));
    return before === false ? null : before;
  } catch {
    return null;
  }
}
