import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changesIn, isolationFor, mergeWorktrees, prepareWorktree, removeWorktrees } from './worktrees';

describe('ticket agents’ copies of a project', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'stagecraft-worktrees-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'README.md'), 'readme\n');
    writeFileSync(join(root, 'src', 'a.js'), 'a\n');
    mkdirSync(join(root, '.stagecraft'));
    writeFileSync(join(root, '.stagecraft', 'events.db'), 'store');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const wt = (name: string, method: 'copy' | 'git-worktree' = 'copy') => ({
    path: join(root, '.stagecraft', 'worktrees', 'wf', name),
    method,
  });

  it('copies the project without its store, and merges one agent’s changes while two agents’ different edits conflict', async () => {
    const one = wt('one.1');
    const two = wt('two.1');
    await prepareWorktree(root, one);
    await prepareWorktree(root, two);
    expect(existsSync(join(one.path, 'src', 'a.js'))).toBe(true);
    expect(existsSync(join(one.path, '.stagecraft'))).toBe(false);
    writeFileSync(join(one.path, 'README.md'), 'one\n');
    writeFileSync(join(two.path, 'README.md'), 'two\n');
    writeFileSync(join(two.path, 'NEW.md'), 'new\n');
    rmSync(join(one.path, 'src', 'a.js'));
    // Preparing again keeps what the agent did.
    await prepareWorktree(root, one);
    expect(await changesIn(one)).toEqual([
      { path: 'README.md', deleted: false },
      { path: 'src/a.js', deleted: true },
    ]);
    const result = await mergeWorktrees(root, [
      { agentId: 'one', worktree: one },
      { agentId: 'two', worktree: two },
    ]);
    expect(result).toEqual({
      merged: [
        { agentId: 'one', files: ['src/a.js'] },
        { agentId: 'two', files: ['NEW.md'] },
      ],
      conflicts: [{ path: 'README.md', agentIds: ['one', 'two'] }],
    });
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('readme\n');
    expect(readFileSync(join(root, 'NEW.md'), 'utf8')).toBe('new\n');
    expect(existsSync(join(root, 'src', 'a.js'))).toBe(false);
    // The same merge again gives the same files.
    expect(await mergeWorktrees(root, [{ agentId: 'two', worktree: two }])).toEqual({
      merged: [{ agentId: 'two', files: ['NEW.md', 'README.md'] }],
      conflicts: [],
    });
    await removeWorktrees(root, 'wf');
    expect(existsSync(join(root, '.stagecraft', 'worktrees', 'wf'))).toBe(false);
    expect(existsSync(join(root, '.stagecraft', 'events.db'))).toBe(true);
  });

  it('uses a git worktree when the root is the top of a git repository, and removes it afterwards', async () => {
    expect(await isolationFor(root)).toBe('copy');
    const git = (...args: string[]) => execFileSync('git', ['-C', root, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args]);
    git('init', '-q');
    writeFileSync(join(root, '.gitignore'), '.stagecraft/\n');
    git('add', '-A');
    git('commit', '-qm', 'init');
    expect(await isolationFor(root)).toBe('git-worktree');
    const one = wt('one.1', 'git-worktree');
    await prepareWorktree(root, one);
    expect(execFileSync('git', ['-C', root, 'worktree', 'list']).toString()).toContain(one.path);
    writeFileSync(join(one.path, 'src', 'b.js'), 'b\n');
    expect(await mergeWorktrees(root, [{ agentId: 'one', worktree: one }])).toEqual({
      merged: [{ agentId: 'one', files: ['src/b.js'] }],
      conflicts: [],
    });
    expect(readFileSync(join(root, 'src', 'b.js'), 'utf8')).toBe('b\n');
    await removeWorktrees(root, 'wf');
    expect(execFileSync('git', ['-C', root, 'worktree', 'list']).toString()).not.toContain(one.path);
  });
});
