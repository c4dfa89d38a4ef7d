import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConflictVersions, MergeConflictReason, Worktree } from '@stagecraft/contracts';
import { removeInsideRoot, resolveWritableInsideRoot, writeInsideRoot } from '@stagecraft/tools';
import { mergeCase } from '@stagecraft/workflows';
import { hostGit } from './host-git';
import { readRegular, sha256, skipped, snapshotObject } from './snapshot';
import { changesIn, rootSide, sideDigest } from './worktrees';

export interface MergeConflict {
  path: string;
  agentIds: string[];
  reason?: MergeConflictReason;
  kept?: string;
  versions?: ConflictVersions;
  userSha256?: string | null;
}

export interface MergeResult {
  merged: { agentId: string; files: string[] }[];
  conflicts: MergeConflict[];
}

/**
 * Conflicts whose three versions travel in the event and the collector's prompt; the rest name their
 * files only. Bounded so the collector's brief (some 300 kB at most) stays well inside a bus message.
 */
const MAX_DETAILED = 10;
const MAX_VERSION = 6_000;
const MAX_DIFF = 12_000;

const asText = (bytes: Buffer | null): string | null => {
  if (bytes === null) return null;
  if (bytes.includes(0)) return `(binary file, ${bytes.length} bytes)`;
  const text = bytes.toString('utf8');
  return text.length <= MAX_VERSION ? text : `${text.slice(0, MAX_VERSION - 20)}\n[… cut]`;
};

/** Runs git on three plain files in a private temporary directory: no repository is read. */
async function withScratch<T>(files: Record<string, Buffer>, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'stagecraft-merge-'));
  try {
    for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes, { mode: 0o600 });
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `git merge-file --diff3`: the merged bytes when no hunks overlap, null otherwise (or for binary files). */
async function mergeLines(base: Buffer, ours: Buffer, theirs: Buffer): Promise<Buffer | null> {
  // git's output is read back as UTF-8: anything else (or binary) is left for a person rather than mangled.
  if ([base, ours, theirs].some((b) => b.includes(0) || !Buffer.from(b.toString('utf8'), 'utf8').equals(b))) return null;
  return withScratch({ base, ours, theirs }, async (dir) => {
    try {
      const { stdout } = await hostGit(dir, ['merge-file', '-p', '--diff3', 'ours', 'base', 'theirs']);
      return Buffer.from(stdout, 'utf8');
    } catch {
      return null; // a positive exit status counts the conflicting hunks
    }
  });
}

/** A unified diff from the user's version to the ticket's. */
async function unifiedDiff(ours: Buffer | null, theirs: Buffer | null): Promise<string> {
  return withScratch({ user: ours ?? Buffer.alloc(0), ticket: theirs ?? Buffer.alloc(0) }, async (dir) => {
    const args = ['diff', '--no-index', '--no-color', '--no-ext-diff', '--text', '-U3', 'user', 'ticket'];
    const diff = await hostGit(dir, args).then(
      (r) => r.stdout,
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    return diff.length <= MAX_DIFF ? diff : `${diff.slice(0, MAX_DIFF - 20)}\n[… cut]`;
  });
}

/** The digest of the root's file at `path`: null when there is none, `other` when it is not a regular file. */
const currentDigest = (realRoot: string, path: string): string | null => sideDigest(rootSide(realRoot, path));

/** Writes (or deletes) one file of the root through the pinned writers, if the user's file is still what was read. */
async function writeRoot(realRoot: string, path: string, expected: string | null, bytes: Buffer | null, mode?: number): Promise<boolean> {
  try {
    const target = await resolveWritableInsideRoot(realRoot, path);
    // The user saved the file while the merge ran: their version stays, the ticket's becomes a conflict.
    if (currentDigest(realRoot, path) !== expected) return false;
    if (bytes === null) removeInsideRoot(realRoot, target, path);
    else writeInsideRoot(realRoot, target, path, bytes, mode === undefined ? {} : { mode });
    return true;
  } catch {
    return false;
  }
}

/**
 * Brings the ticket agents' changes into the project root as a three-way merge against the snapshot
 * each copy started from (docs/decisions/0036): the user's side is never overwritten. A file only the
 * ticket changed is written; one both changed merges line by line when their hunks do not overlap; any
 * other is a conflict, left in the root as the user has it, the ticket's version kept in its copy.
 * Agents merge one after the other, so a second ticket merges against the first one's result.
 * Applying the same merge twice gives the same files.
 */
export async function mergeWorktrees(
  projectRoot: string,
  agents: readonly { agentId: string; worktree: Worktree }[],
): Promise<MergeResult> {
  const root = await realpath(projectRoot);
  const merged = new Map<string, string[]>(agents.map((a) => [a.agentId, []]));
  const conflicts: MergeConflict[] = [];
  /** Which agent this merge last wrote each path for, to name both sides of a conflict between tickets. */
  const writtenBy = new Map<string, string>();
  for (const agent of agents) {
    const realCopy = await realpath(agent.worktree.path).catch(() => null);
    if (realCopy === null) continue;
    for (const change of await changesIn(agent.worktree)) {
      if (skipped(change.path)) continue;
      const theirs = change.deleted ? null : readRegular(realCopy, change.path);
      if (!change.deleted && theirs === null) continue; // no longer a regular file in the copy: nothing to bring
      const ours = rootSide(root, change.path);
      const oursDigest = sideDigest(ours);
      const theirsDigest = theirs === null ? null : sha256(theirs.bytes);
      const conflict = async (reason: MergeConflictReason) => {
        const base = change.base === null ? null : await snapshotObject(projectRoot, change.base);
        const oursBytes = ours.kind === 'file' ? ours.bytes : null;
        const detailed = conflicts.length < MAX_DETAILED;
        conflicts.push({
          path: change.path,
          agentIds: [...new Set([writtenBy.get(change.path), agent.agentId].filter((id): id is string => id !== undefined))],
          reason,
          ...(oursDigest === 'other' ? {} : { userSha256: oursDigest }),
          ...(theirs === null ? {} : { kept: join(agent.worktree.path, change.path) }),
          ...(detailed
            ? {
                versions: {
                  base: asText(base),
                  ours: asText(oursBytes),
                  theirs: asText(theirs?.bytes ?? null),
                  diff: await unifiedDiff(oursBytes, theirs?.bytes ?? null),
                },
              }
            : {}),
        });
      };
      const done = () => {
        merged.get(agent.agentId)?.push(change.path);
        writtenBy.set(change.path, agent.agentId);
      };
      if (oursDigest === 'other') {
        await conflict('unwritable');
        continue;
      }
      const decided = mergeCase({ base: change.base, ours: oursDigest, theirs: theirsDigest });
      switch (decided.kind) {
        case 'unchanged':
          break;
        case 'same':
          done();
          break;
        case 'take-theirs':
          if (await writeRoot(root, change.path, oursDigest, theirs?.bytes ?? null, theirs?.mode)) done();
          else await conflict('unwritable');
          break;
        case 'merge-lines': {
          const base = change.base === null ? null : await snapshotObject(projectRoot, change.base);
          const result = base === null || ours.kind !== 'file' || theirs === null ? null : await mergeLines(base, ours.bytes, theirs.bytes);
          if (result === null) await conflict('both-edited');
          else if (await writeRoot(root, change.path, oursDigest, result)) done();
          else await conflict('unwritable');
          break;
        }
        case 'conflict':
          await conflict(decided.reason);
          break;
        default: {
          const unreachable: never = decided;
          throw new Error(`unknown merge case ${JSON.stringify(unreachable)}`);
        }
      }
    }
  }
  return { merged: [...merged.entries()].map(([agentId, files]) => ({ agentId, files })), conflicts };
}

/**
 * Writes the ticket collector's resolved contents (docs/decisions/0036) through the pinned writers, each
 * only where the user's file is still the one the merge left (`userSha256`): a file the user changed
 * since stays theirs, and stays a conflict.
 */
export async function applyResolutions(
  projectRoot: string,
  resolutions: readonly { path: string; content: string; userSha256: string | null | undefined }[],
): Promise<{ resolved: string[]; unresolved: { path: string; reason: string }[] }> {
  const root = await realpath(projectRoot);
  const resolved: string[] = [];
  const unresolved: { path: string; reason: string }[] = [];
  for (const r of resolutions) {
    if (skipped(r.path)) unresolved.push({ path: r.path, reason: 'a protected path' });
    else if (currentDigest(root, r.path) === sha256(Buffer.from(r.content, 'utf8')))
      resolved.push(r.path); // applied before a restart
    else if (r.userSha256 === undefined) unresolved.push({ path: r.path, reason: 'the merge did not record the user’s version' });
    else if (await writeRoot(root, r.path, r.userSha256, Buffer.from(r.content, 'utf8'))) resolved.push(r.path);
    else unresolved.push({ path: r.path, reason: 'the user changed the file since the merge, or it cannot be written' });
  }
  return { resolved, unresolved };
}
