import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { Worktree } from '@stagecraft/contracts';

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) => run('git', ['-C', cwd, ...args], { maxBuffer: 64 * 1024 * 1024 });

/** Never copied into a worktree nor merged back: the store, other worktrees, git's own data, installed packages. */
const SKIPPED = new Set(['.stagecraft', '.git', 'node_modules']);
const skipped = (path: string): boolean => path.split(/[\\/]/).some((part) => SKIPPED.has(part));

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

const digest = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/** Creates the agent's copy of the project (idempotent: an existing one is kept, with whatever the agent did in it). */
export async function prepareWorktree(projectRoot: string, worktree: Worktree): Promise<void> {
  if (await exists(manifestPath(worktree))) return;
  await mkdir(dirname(worktree.path), { recursive: true });
  if (worktree.method === 'git-worktree') {
    if (!(await exists(worktree.path))) await git(projectRoot, 'worktree', 'add', '--detach', worktree.path, 'HEAD');
  } else {
    await rm(worktree.path, { recursive: true, force: true });
    await mkdir(worktree.path, { recursive: true });
    // Entry by entry: the copy lives under the root's own `.stagecraft`, which is left out.
    for (const entry of await readdir(projectRoot)) {
      if (SKIPPED.has(entry)) continue;
      await cp(join(projectRoot, entry), join(worktree.path, entry), {
        recursive: true,
        filter: (source) => !skipped(relative(projectRoot, source)),
      });
    }
  }
  // What the copy started from, to tell later what the agent changed.
  const base: Record<string, string> = {};
  for (const path of await files(worktree.path)) base[path] = await digest(join(worktree.path, path));
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
  const changes: Change[] = [];
  for (const path of now) if (base[path] !== (await digest(join(worktree.path, path)))) changes.push({ path, deleted: false });
  const present = new Set(now);
  for (const path of Object.keys(base)) if (!present.has(path)) changes.push({ path, deleted: true });
  return changes.sort((a, b) => (a.path < b.path ? -1 : 1));
}

export interface MergeResult {
  merged: { agentId: string; files: string[] }[];
  conflicts: { path: string; agentIds: string[] }[];
}

/**
 * Brings the agents' changes into the project root: a file changed by one agent is copied over (or
 * deleted); a file two agents changed differently is left as it is and reported as a conflict.
 * Applying the same merge twice gives the same files.
 */
export async function mergeWorktrees(
  projectRoot: string,
  agents: readonly { agentId: string; worktree: Worktree }[],
): Promise<MergeResult> {
  const byPath = new Map<string, { agentId: string; worktree: Worktree; deleted: boolean; content: string | null }[]>();
  for (const agent of agents) {
    for (const change of await changesIn(agent.worktree)) {
      const content = change.deleted ? null : await digest(join(agent.worktree.path, change.path));
      byPath.set(change.path, [...(byPath.get(change.path) ?? []), { ...agent, deleted: change.deleted, content }]);
    }
  }
  const merged = new Map<string, string[]>(agents.map((a) => [a.agentId, []]));
  const conflicts: MergeResult['conflicts'] = [];
  for (const [path, changes] of [...byPath.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const same = changes.every((c) => c.content === changes[0].content);
    if (!same) {
      conflicts.push({ path, agentIds: changes.map((c) => c.agentId) });
      continue;
    }
    const [change] = changes;
    const target = join(projectRoot, path);
    if (change.deleted) await rm(target, { force: true });
    else {
      await mkdir(dirname(target), { recursive: true });
      await cp(join(change.worktree.path, path), target);
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
