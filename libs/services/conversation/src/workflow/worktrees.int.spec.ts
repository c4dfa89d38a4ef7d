import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyResolutions, mergeWorktrees } from './merge-back';
import { readSnapshot, takeSnapshot } from './snapshot';
import { changesIn, isolationFor, prepareWorktree, removeMergedWorktrees, removeWorktrees } from './worktrees';

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

  const wt = (name: string, method: 'copy' | 'git-worktree' = 'copy', base?: string) => ({
    path: join(root, '.stagecraft', 'worktrees', 'wf', name),
    method,
    ...(base ? { base } : {}),
  });
  const git = (...args: string[]) => execFileSync('git', ['-C', root, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args]);
  const lines = (n: number, change: Record<number, string> = {}) =>
    Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

  it('copies the project without its store; the first ticket’s edit goes in, a second ticket’s overlapping edit is a conflict', async () => {
    const { id } = await takeSnapshot(root, 'copy');
    const one = wt('one.1', 'copy', id);
    const two = wt('two.1', 'copy', id);
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
    expect((await changesIn(one)).map(({ path, deleted }) => ({ path, deleted }))).toEqual([
      { path: 'README.md', deleted: false },
      { path: 'src/a.js', deleted: true },
    ]);
    const result = await mergeWorktrees(root, [
      { agentId: 'one', worktree: one },
      { agentId: 'two', worktree: two },
    ]);
    expect(result.merged).toEqual([
      { agentId: 'one', files: ['README.md', 'src/a.js'] },
      { agentId: 'two', files: ['NEW.md'] },
    ]);
    expect(result.conflicts).toEqual([
      {
        path: 'README.md',
        agentIds: ['one', 'two'],
        reason: 'both-edited',
        userSha256: createHash('sha256').update('one\n').digest('hex'),
        kept: join(two.path, 'README.md'),
        versions: { base: 'readme\n', ours: 'one\n', theirs: 'two\n', diff: expect.stringContaining('-one\n+two\n') },
      },
    ]);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(two.path, 'README.md'), 'utf8')).toBe('two\n');
    expect(readFileSync(join(root, 'NEW.md'), 'utf8')).toBe('new\n');
    expect(existsSync(join(root, 'src', 'a.js'))).toBe(false);
    // The same merge again gives the same files.
    const again = await mergeWorktrees(root, [{ agentId: 'one', worktree: one }]);
    expect(again).toEqual({ merged: [{ agentId: 'one', files: ['README.md', 'src/a.js'] }], conflicts: [] });
    await removeMergedWorktrees(root, 'wf', [one.path]);
    expect(existsSync(one.path)).toBe(false);
    expect(existsSync(two.path)).toBe(true);
    await removeWorktrees(root, 'wf');
    expect(existsSync(join(root, '.stagecraft', 'worktrees', 'wf'))).toBe(false);
    expect(existsSync(join(root, '.stagecraft', 'events.db'))).toBe(true);
  });

  it('never overwrites a file the user changed after the snapshot: a conflict keeps both versions', async () => {
    const { id } = await takeSnapshot(root, 'copy');
    const one = wt('one.1', 'copy', id);
    await prepareWorktree(root, one);
    writeFileSync(join(one.path, 'README.md'), 'ticket\n');
    writeFileSync(join(one.path, 'src', 'a.js'), 'a by the ticket\n');
    writeFileSync(join(one.path, 'ADDED.md'), 'ticket added\n');
    // Meanwhile the user edits, deletes and adds in the root.
    writeFileSync(join(root, 'README.md'), 'user\n');
    rmSync(join(root, 'src', 'a.js'));
    writeFileSync(join(root, 'ADDED.md'), 'user added\n');
    const result = await mergeWorktrees(root, [{ agentId: 'one', worktree: one }]);
    expect(result.merged).toEqual([{ agentId: 'one', files: [] }]);
    expect(result.conflicts.map((c) => [c.path, c.reason, c.kept])).toEqual([
      ['ADDED.md', 'both-added', join(one.path, 'ADDED.md')],
      ['README.md', 'both-edited', join(one.path, 'README.md')],
      ['src/a.js', 'user-deleted', join(one.path, 'src/a.js')],
    ]);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('user\n');
    expect(readFileSync(join(root, 'ADDED.md'), 'utf8')).toBe('user added\n');
    expect(existsSync(join(root, 'src', 'a.js'))).toBe(false);
    expect(readFileSync(join(one.path, 'README.md'), 'utf8')).toBe('ticket\n');
  });

  it('merges non-overlapping edits of the user and a ticket to one file line by line', async () => {
    writeFileSync(join(root, 'notes.txt'), lines(12));
    const { id } = await takeSnapshot(root, 'copy');
    const one = wt('one.1', 'copy', id);
    await prepareWorktree(root, one);
    writeFileSync(join(one.path, 'notes.txt'), lines(12, { 11: 'ticket 11' }));
    writeFileSync(join(root, 'notes.txt'), lines(12, { 2: 'user 2' }));
    const result = await mergeWorktrees(root, [{ agentId: 'one', worktree: one }]);
    expect(result).toEqual({ merged: [{ agentId: 'one', files: ['notes.txt'] }], conflicts: [] });
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(lines(12, { 2: 'user 2', 11: 'ticket 11' }));
  });

  it('leaves binary files both changed, and a file the ticket deleted but the user edited, as the user has them', async () => {
    writeFileSync(join(root, 'logo.bin'), Buffer.from([0, 1, 2, 3]));
    const { id } = await takeSnapshot(root, 'copy');
    const one = wt('one.1', 'copy', id);
    await prepareWorktree(root, one);
    writeFileSync(join(one.path, 'logo.bin'), Buffer.from([0, 1, 2, 4]));
    writeFileSync(join(root, 'logo.bin'), Buffer.from([9, 1, 2, 3]));
    rmSync(join(one.path, 'README.md'));
    writeFileSync(join(root, 'README.md'), 'the user’s readme\n');
    const result = await mergeWorktrees(root, [{ agentId: 'one', worktree: one }]);
    expect(result.conflicts.map((c) => [c.path, c.reason, c.kept ?? null, c.versions?.theirs ?? null])).toEqual([
      ['README.md', 'ticket-deleted', null, null],
      ['logo.bin', 'both-edited', join(one.path, 'logo.bin'), '(binary file, 4 bytes)'],
    ]);
    expect(readFileSync(join(root, 'logo.bin'))).toEqual(Buffer.from([9, 1, 2, 3]));
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('the user’s readme\n');
  });

  it('applies a collector’s resolution only over the user’s file the merge left, once', async () => {
    writeFileSync(join(root, 'later.md'), 'changed again\n');
    const digest = (text: string) => createHash('sha256').update(text).digest('hex');
    const resolutions = [
      { path: 'README.md', content: 'resolved\n', userSha256: digest('readme\n') },
      { path: 'later.md', content: 'resolved\n', userSha256: digest('as merged\n') },
      { path: '.stagecraft/events.db', content: 'x', userSha256: digest('store') },
    ];
    const first = await applyResolutions(root, resolutions);
    expect(first).toEqual({
      resolved: ['README.md'],
      unresolved: [
        { path: 'later.md', reason: expect.stringContaining('changed the file since the merge') },
        { path: '.stagecraft/events.db', reason: 'a protected path' },
      ],
    });
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('resolved\n');
    expect(readFileSync(join(root, 'later.md'), 'utf8')).toBe('changed again\n');
    expect(readFileSync(join(root, '.stagecraft', 'events.db'), 'utf8')).toBe('store');
    // A restart that applies them again finds the first already in place.
    expect((await applyResolutions(root, resolutions)).resolved).toEqual(['README.md']);
  });

  it('starts a git worktree from the snapshot: uncommitted edits and untracked files in, ignored files out', async () => {
    expect(await isolationFor(root)).toBe('copy');
    git('init', '-q');
    writeFileSync(join(root, '.gitignore'), '.stagecraft/\nsecret.env\n');
    git('add', '-A');
    git('commit', '-qm', 'init');
    expect(await isolationFor(root)).toBe('git-worktree');
    writeFileSync(join(root, 'README.md'), 'uncommitted\n');
    writeFileSync(join(root, 'untracked.md'), 'untracked\n');
    writeFileSync(join(root, 'secret.env'), 'KEY=1\n');
    rmSync(join(root, 'src', 'a.js'));
    symlinkSync('/etc/hostname', join(root, 'link'));
    const snapshot = await takeSnapshot(root, 'git-worktree');
    expect(Object.keys(await readSnapshot(root, snapshot.id)).sort()).toEqual(['.gitignore', 'README.md', 'untracked.md']);
    // The same tree gives the same snapshot.
    expect(await takeSnapshot(root, 'git-worktree')).toEqual(snapshot);
    const one = wt('one.1', 'git-worktree', snapshot.id);
    await prepareWorktree(root, one);
    expect(execFileSync('git', ['-C', root, 'worktree', 'list']).toString()).toContain(one.path);
    expect(readFileSync(join(one.path, 'README.md'), 'utf8')).toBe('uncommitted\n');
    expect(readFileSync(join(one.path, 'untracked.md'), 'utf8')).toBe('untracked\n');
    expect(existsSync(join(one.path, 'secret.env'))).toBe(false);
    expect(existsSync(join(one.path, 'src', 'a.js'))).toBe(false);
    writeFileSync(join(one.path, 'src', 'b.js'), 'b\n');
    expect(await mergeWorktrees(root, [{ agentId: 'one', worktree: one }])).toEqual({
      merged: [{ agentId: 'one', files: ['src/b.js'] }],
      conflicts: [],
    });
    expect(readFileSync(join(root, 'src', 'b.js'), 'utf8')).toBe('b\n');
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('uncommitted\n');
    await removeWorktrees(root, 'wf');
    expect(execFileSync('git', ['-C', root, 'worktree', 'list']).toString()).not.toContain(one.path);
  });

  it('refuses a snapshot manifest edited since it was taken', async () => {
    const { id } = await takeSnapshot(root, 'copy');
    const file = join(root, '.stagecraft', 'snapshots', `${id}.json`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('README.md', 'README.mx'));
    await expect(readSnapshot(root, id)).rejects.toThrow(/changed since it was taken/);
    await expect(prepareWorktree(root, wt('one.1', 'copy', id))).rejects.toThrow(/changed since it was taken/);
  });
});
