import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pinMetadata, quarantineNew, scanMetadata, unpin } from './vcs-metadata';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-vcs-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mk = (path: string) => mkdirSync(join(root, path), { recursive: true });

describe('scanMetadata', () => {
  it('finds the root metadata and nested repositories, never inside node_modules or through a symlink', async () => {
    mk('.git/hooks');
    mk('vendor/lib/.git');
    mk('packages/app/.hg');
    mk('node_modules/dep/.git');
    mk('elsewhere/.svn');
    writeFileSync(join(root, 'sub'), '');
    mk('modules/child');
    writeFileSync(join(root, 'modules/child/.git'), 'gitdir: ../../.git/modules/child\n');
    symlinkSync(join(root, 'elsewhere'), join(root, 'linked'));
    symlinkSync(join(root, 'vendor/lib/.git'), join(root, 'packages/.git'));
    const scan = await scanMetadata(root);
    expect(scan.incomplete).toBe(false);
    expect([...scan.entries.keys()].map((p) => p.slice(root.length + 1)).sort()).toEqual([
      '.git',
      'elsewhere/.svn',
      'modules/child/.git',
      'packages/.git',
      'packages/app/.hg',
      'vendor/lib/.git',
    ]);
  });
});

describe('pinMetadata', () => {
  it('opens every real entry the walk saw, never a symlink', async () => {
    mk('.git');
    mk('vendor/lib/.git');
    writeFileSync(join(root, 'sub.git'), '');
    mk('modules/child');
    writeFileSync(join(root, 'modules/child/.git'), 'gitdir: ../../.git/modules/child\n');
    symlinkSync(join(root, 'vendor/lib/.git'), join(root, 'modules/.git'));
    const { pinned, complete } = pinMetadata(await scanMetadata(root));
    try {
      // A symlink is noted (so a swap is seen) but never bound: its target is what a bind would expose.
      expect(pinned.map((p) => p.path.slice(root.length + 1)).sort()).toEqual(['.git', 'modules/child/.git', 'vendor/lib/.git']);
      expect(complete).toBe(true);
      for (const { path, fd } of pinned) expect(readlinkSync(`/proc/self/fd/${fd}`)).toBe(path);
    } finally {
      unpin(pinned);
    }
  });

  it('refuses an entry swapped for another after the walk, and leaves nothing open', async () => {
    mk('a/.git');
    mk('b/.git');
    const scan = await scanMetadata(root);
    rmSync(join(root, 'b'), { recursive: true });
    mk('elsewhere/.git');
    symlinkSync(join(root, 'elsewhere'), join(root, 'b'));
    const open = readdirSync('/proc/self/fd').length;
    expect(() => pinMetadata(scan)).toThrow(/b\/\.git changed while the command's sandbox was being set up/);
    expect(readdirSync('/proc/self/fd').length).toBe(open);
  });

  it('stops at its bounds and says so, but always checks the root', async () => {
    mk('a/b/c/d/.git');
    for (let i = 0; i < 30; i += 1) writeFileSync(join(root, `f${i}`), '');
    mk('.git');
    const shallow = await scanMetadata(root, { maxDepth: 2, maxEntries: 1_000 });
    expect([shallow.incomplete, [...shallow.entries.keys()]]).toEqual([true, [join(root, '.git')]]);
    const few = await scanMetadata(root, { maxDepth: 10, maxEntries: 10 });
    expect([few.incomplete, [...few.entries.keys()]]).toEqual([true, [join(root, '.git')]]);
    const whole = await scanMetadata(root, { maxDepth: 10, maxEntries: 1_000 });
    expect(whole.entries.has(join(root, 'a/b/c/d/.git'))).toBe(true);
  });
});

describe('quarantineNew', () => {
  it('moves metadata that appeared, or was swapped, into a quarantine git does not look into', async () => {
    mk('.git');
    mk('old/.git');
    const before = await scanMetadata(root);
    mk('new/.git');
    writeFileSync(join(root, 'new/.git/config'), '[core]\n\tfsmonitor = touch pwned\n');
    rmSync(join(root, 'old/.git'), { recursive: true });
    mk('old/.git');
    const moved = await quarantineNew(root, before, await scanMetadata(root));
    expect(moved).toHaveLength(2);
    const [quarantine] = readdirSync(root).filter((n) => n.startsWith('.stagecraft-quarantine-'));
    expect(moved.sort()).toEqual([`new/.git -> ${quarantine}/new~.git.quarantined`, `old/.git -> ${quarantine}/old~.git.quarantined`]);
    expect(readFileSync(join(root, quarantine, 'new~.git.quarantined/config'), 'utf8')).toContain('fsmonitor');
    expect(existsSync(join(root, 'new/.git'))).toBe(false);
    expect(existsSync(join(root, '.git'))).toBe(true);
  });

  it('quarantines a new root repository and leaves an unchanged tree alone', async () => {
    const before = await scanMetadata(root);
    expect(await quarantineNew(root, before, await scanMetadata(root))).toEqual([]);
    mk('.git/hooks');
    const moved = await quarantineNew(root, before, await scanMetadata(root));
    expect(moved).toEqual([expect.stringMatching(/^\.git -> \.stagecraft-quarantine-\w+\/\.git\.quarantined$/)]);
    expect(existsSync(join(root, '.git'))).toBe(false);
  });

  it('past the first walk, takes only what was created after it', async () => {
    mk('deep/x/y/.git');
    await sleep(200);
    const before = await scanMetadata(root, { maxDepth: 2, maxEntries: 1_000 });
    mk('deep/x/z/.git');
    const after = await scanMetadata(root);
    expect(await quarantineNew(root, before, after)).toEqual([expect.stringMatching(/^deep\/x\/z\/\.git -> /)]);
    expect(existsSync(join(root, 'deep/x/y/.git'))).toBe(true);
  });
});
