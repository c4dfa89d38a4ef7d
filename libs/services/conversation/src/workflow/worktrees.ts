import { mkdir, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { StagecraftError, Worktree } from '@stagecraft/contracts';
import { copyTreeFromRoot, readHeld, removeInsideRoot, resolveWritableInsideRoot, withHandle, writeInsideRoot } from '@stagecraft/tools';
import { filtersOff, hostGit } from './host-git';
import { exists, readRegular, readSnapshot, refuseRedirected, sha256, skipped, snapshotObject, walkFiles } from './snapshot';

const git = (cwd: string, ...args: string[]) => hostGit(cwd, args);

/** `git-worktree` when the project root is the top of a git repository with a commit, otherwise `copy`. */
export async function isolationFor(projectRoot: string): Promise<'git-worktree' | 'copy'> {
  try {
    const { stdout } = await git(projectRoot, 'rev-parse', '--show-toplevel');
    await git(projectRoot, 'rev-parse', '--verify', 'HEAD');
    return stdout.trim() === projectRoot ? 'git-worktree' : 'copy';
  } catch {
    return 'copy';
  }
}

const manifestPath = (worktree: Worktree) => `${worktree.path}.base.json`;

/** The digest of a file of a copy; a file that is no longer a regular file has none. */
const digestIn = (realCopy: string, path: string): string | null => {
  const file = readRegular(realCopy, path);
  return file === null ? null : sha256(file.bytes);
};

/**
 * Makes a copy hold exactly the snapshot's files: each written through the pinned writer of the copy
 * (a symlink checked out from HEAD does not lead a write elsewhere), every other regular file removed.
 */
async function materialize(projectRoot: string, copy: string, snapshotId: string): Promise<void> {
  const manifest = await readSnapshot(projectRoot, snapshotId);
  const realCopy = await realpath(copy);
  for (const path of await walkFiles(realCopy))
    if (manifest[path] === undefined) removeInsideRoot(realCopy, await resolveWritableInsideRoot(realCopy, path), path);
  for (const [path, entry] of Object.entries(manifest)) {
    if (skipped(path) || digestIn(realCopy, path) === entry.sha256) continue;
    const bytes = await snapshotObject(projectRoot, entry.sha256);
    if (bytes === null) throw new StagecraftError('INTERNAL', `snapshot ${snapshotId} lost the content of ${path}`);
    const target = await resolveWritableInsideRoot(realCopy, path);
    writeInsideRoot(realCopy, target, path, bytes, { mode: entry.mode });
  }
}

/**
 * Creates the agent's copy of the project (idempotent: an existing one is kept, with whatever the agent
 * did in it). With a snapshot (`worktree.base`) the copy holds the working tree as the snapshot took it,
 * uncommitted and untracked files included; without one (older workflows) HEAD, or the root as it is.
 */
export async function prepareWorktree(projectRoot: string, worktree: Worktree): Promise<void> {
  if (await exists(manifestPath(worktree))) return;
  await mkdir(dirname(worktree.path), { recursive: true });
  await refuseRedirected(projectRoot, dirname(worktree.path));
  if (worktree.method === 'git-worktree') {
    if (!(await exists(worktree.path))) {
      await hostGit(projectRoot, ['worktree', 'add', '--detach', worktree.path, 'HEAD'], await filtersOff(projectRoot));
    }
  } else {
    await rm(worktree.path, { recursive: true, force: true });
    await mkdir(worktree.path, { recursive: true });
    // The copy lives under the root's own `.stagecraft`, which is left out.
    if (worktree.base === undefined) await copyTreeFromRoot(await realpath(projectRoot), worktree.path, skipped);
  }
  if (worktree.base !== undefined) await materialize(projectRoot, worktree.path, worktree.base);
  // What the copy started from, to tell later what the agent changed.
  const base: Record<string, string> = {};
  const realCopy = await realpath(worktree.path);
  for (const path of await walkFiles(worktree.path)) base[path] = digestIn(realCopy, path) ?? '';
  await writeFile(manifestPath(worktree), JSON.stringify(base));
}

export interface Change {
  path: string;
  deleted: boolean;
  /** The digest the copy started with; null for a file the agent created. */
  base: string | null;
}

/** The files an agent changed, created or deleted in its copy. */
export async function changesIn(worktree: Worktree): Promise<Change[]> {
  if (!(await exists(manifestPath(worktree)))) return [];
  const base = JSON.parse(await readFile(manifestPath(worktree), 'utf8')) as Record<string, string>;
  const now = await walkFiles(worktree.path);
  const realCopy = await realpath(worktree.path);
  const changes: Change[] = [];
  for (const path of now) if (base[path] !== digestIn(realCopy, path)) changes.push({ path, deleted: false, base: base[path] || null });
  const present = new Set(now);
  for (const path of Object.keys(base)) if (!present.has(path)) changes.push({ path, deleted: true, base: base[path] || null });
  return changes.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Removes a workflow's copies (and git's record of its worktrees). */
export async function removeWorktrees(projectRoot: string, workflowId: string): Promise<void> {
  const dir = join(projectRoot, '.stagecraft', 'worktrees', workflowId);
  if (!(await exists(dir))) return;
  await rm(dir, { recursive: true, force: true });
  await git(projectRoot, 'worktree', 'prune').catch(() => undefined);
}

/**
 * Removes the copies whose changes are all in the root, and the workflow's folder once it is empty;
 * every other copy stays where it is for the user. Only paths under the workflow's own folder are removed.
 */
export async function removeMergedWorktrees(projectRoot: string, workflowId: string, paths: readonly string[]): Promise<void> {
  const dir = join(projectRoot, '.stagecraft', 'worktrees', workflowId);
  if (!(await exists(dir))) return;
  await refuseRedirected(projectRoot, dir);
  for (const path of paths) {
    if (dirname(path) !== dir) continue;
    await rm(path, { recursive: true, force: true });
    await rm(`${path}.base.json`, { force: true });
  }
  if ((await readdir(dir)).length === 0) await rm(dir, { recursive: true, force: true });
  await git(projectRoot, 'worktree', 'prune').catch(() => undefined);
}

export type RootSide = { kind: 'absent' } | { kind: 'file'; bytes: Buffer; mode: number } | { kind: 'other' };

/** The root's file at `path`, read through one handle of it; `other` for a symlink, a directory or anything not a regular file. */
export function rootSide(realRoot: string, path: string): RootSide {
  try {
    return withHandle(realRoot, join(realRoot, path), path, (found): RootSide => {
      if (found === undefined) return { kind: 'absent' };
      if (!found.info.isFile()) return { kind: 'other' };
      return { kind: 'file', bytes: readHeld(found.fd, found.info.size), mode: found.info.mode & 0o777 };
    });
  } catch {
    return { kind: 'other' };
  }
}

/** A root side's digest: null when absent, `other` when it is not a regular file. */
export const sideDigest = (side: RootSide): string | null =>
  side.kind === 'file' ? sha256(side.bytes) : side.kind === 'absent' ? null : 'other';
