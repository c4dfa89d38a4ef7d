import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { StagecraftError, Worktree } from '@stagecraft/contracts';
import {
  copyTreeFromRoot,
  readHeld,
  removeInsideRoot,
  resolveWritableInsideRoot,
  touchesVcsMetadata,
  withHandle,
  writeInsideRoot,
} from '@stagecraft/tools';
import { filtersOff, hostGit } from './host-git';

const git = (cwd: string, ...args: string[]) => hostGit(cwd, args);

/**
 * Never copied into a worktree nor merged back: the store, other worktrees, installed packages, and
 * version-control metadata (`.git`, `.hg`, `.svn` in any case, at any depth), whose hooks and config
 * would run on the host.
 */
const SKIPPED = new Set(['.stagecraft', 'node_modules']);
const skipped = (path: string): boolean => touchesVcsMetadata(path) || path.split(/[\\/]/).some((part) => SKIPPED.has(part));

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

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
const manifestPath = (worktree: Worktree) => `${worktree.path}.base.json`;

async function files(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((path) => !skipped(path))
    .sort();
}

/**
 * A regular file of an agent's copy, read through a handle of the file itself: a copy is the agent's
 * to change while it is read, and a file swapped for a symlink or a FIFO is not followed nor waited on.
 */
function readCopied(realCopy: string, path: string): { bytes: Buffer; mode: number } | null {
  try {
    return withHandle(realCopy, join(realCopy, path), path, (found) =>
      found?.info.isFile() ? { bytes: readHeld(found.fd, found.info.size), mode: found.info.mode & 0o777 } : null,
    );
  } catch {
    return null;
  }
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The digest of a file of a copy; a file that is no longer a regular file has none. */
const digestIn = (realCopy: string, path: string): string | null => {
  const file = readCopied(realCopy, path);
  return file === null ? null : sha256(file.bytes);
};

/**
 * The copies live in the root's own `.stagecraft`: a symlink on that way (planted before commands
 * could no longer write there) would put them, and what is merged back from them, elsewhere.
 */
async function refuseRedirected(projectRoot: string, dir: string): Promise<void> {
  const spelled = join(await realpath(projectRoot), relative(projectRoot, dir));
  if ((await realpath(dir)) !== spelled)
    throw new StagecraftError('FORBIDDEN_PATH', `'${relative(projectRoot, dir)}' leads out of its place through a symlink`, [
      { path: ['projectRoot'], message: 'remove the symlink under .stagecraft, then start the workflow again' },
    ]);
}

/** Creates the agent's copy of the project (idempotent: an existing one is kept, with whatever the agent did in it). */
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
    await copyTreeFromRoot(await realpath(projectRoot), worktree.path, skipped);
  }
  // What the copy started from, to tell later what the agent changed.
  const base: Record<string, string> = {};
  const realCopy = await realpath(worktree.path);
  for (const path of await files(worktree.path)) base[path] = digestIn(realCopy, path) ?? '';
  await writeFile(manifestPath(worktree), JSON.stringify(base));
}

export interface Change {
  path: string;
  deleted: boolean;
}

/** The files an agent changed, created or deleted in its copy. */
export async function changesIn(worktree: Worktree): Promise<Change[]> {
  if (!(await exists(manifestPath(worktree)))) return [];
  const base = JSON.parse(await readFile(manifestPath(worktree), 'utf8')) as Record<string, string>;
  const now = await files(worktree.path);
  const realCopy = await realpath(worktree.path);
  const changes: Change[] = [];
  for (const path of now) if (base[path] !== digestIn(realCopy, path)) changes.push({ path, deleted: false });
  const present = new Set(now);
  for (const path of Object.keys(base)) if (!present.has(path)) changes.push({ path, deleted: true });
  return changes.sort((a, b) => (a.path < b.path ? -1 : 1));
}

export interface MergeResult {
  merged: { agentId: string; files: string[] }[];
  conflicts: { path: string; agentIds: string[] }[];
}

type Incoming = { agentId: string; deleted: boolean; file: { bytes: Buffer; mode: number } | null; digest: string | null };

/**
 * Writes one change into the project root through ./pinned of @stagecraft/tools: a symlink in the root
 * that leads out, or one swapped in while the merge runs, is refused like a file tool's path. False
 * when the change could not be applied.
 */
async function applyChange(projectRoot: string, path: string, change: Incoming): Promise<boolean> {
  try {
    const target = await resolveWritableInsideRoot(projectRoot, path);
    if (change.deleted) removeInsideRoot(projectRoot, target, path);
    else if (change.file) writeInsideRoot(projectRoot, target, path, change.file.bytes, { mode: change.file.mode });
    else return false;
    return true;
  } catch {
    return false;
  }
}

/**
 * Brings the agents' changes into the project root: a file changed by one agent is copied over (or
 * deleted); a file two agents changed differently is left as it is and reported as a conflict, as is
 * one that cannot be written where its path leads. Applying the same merge twice gives the same files.
 */
export async function mergeWorktrees(
  projectRoot: string,
  agents: readonly { agentId: string; worktree: Worktree }[],
): Promise<MergeResult> {
  const byPath = new Map<string, Incoming[]>();
  for (const agent of agents) {
    const realCopy = await realpath(agent.worktree.path).catch(() => null);
    if (realCopy === null) continue;
    for (const change of await changesIn(agent.worktree)) {
      if (skipped(change.path)) continue;
      const file = change.deleted ? null : readCopied(realCopy, change.path);
      const digest = file === null ? null : sha256(file.bytes);
      byPath.set(change.path, [...(byPath.get(change.path) ?? []), { agentId: agent.agentId, deleted: change.deleted, file, digest }]);
    }
  }
  const merged = new Map<string, string[]>(agents.map((a) => [a.agentId, []]));
  const conflicts: MergeResult['conflicts'] = [];
  const root = await realpath(projectRoot);
  for (const [path, changes] of [...byPath.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const same = changes.every((c) => c.deleted === changes[0].deleted && c.digest === changes[0].digest);
    if (!same || !(await applyChange(root, path, changes[0]))) {
      conflicts.push({ path, agentIds: changes.map((c) => c.agentId) });
      continue;
    }
    for (const c of changes) merged.get(c.agentId)?.push(path);
  }
  return { merged: [...merged.entries()].map(([agentId, files]) => ({ agentId, files })), conflicts };
}

/** Removes a finished workflow's copies (and git's record of its worktrees). */
export async function removeWorktrees(projectRoot: string, workflowId: string): Promise<void> {
  const dir = join(projectRoot, '.stagecraft', 'worktrees', workflowId);
  if (!(await exists(dir))) return;
  await rm(dir, { recursive: true, force: true });
  await git(projectRoot, 'worktree', 'prune').catch(() => undefined);
}
