import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostGit } from './host-git';
import { mergeWorktrees } from './merge-back';
import { isolationFor, prepareWorktree, removeWorktrees } from './worktrees';

// A project whose git metadata a hostile model has prepared: every hook git could run, an fsmonitor
// and a filter driver, each leaving a marker and the environment it was given.
const HOOKS = [
  'post-checkout',
  'reference-transaction',
  'pre-commit',
  'post-commit',
  'post-merge',
  'post-rewrite',
  'pre-auto-gc',
  'post-index-change',
  'pre-push',
  'fsmonitor-watchman',
];
const SECRETS = {
  OPENAI_API_KEY: 'sk-test-secret',
  NATS_URL: 'nats://svc:bus-password@127.0.0.1:4222',
  STAGECRAFT_MCP_TOKEN: 'mcp-token-secret',
};

let base: string;
let root: string;
let markers: string;
const saved: Record<string, string | undefined> = {};

/** A filter passes its input through; a hook reads nothing. */
const script = (path: string, name: string, filter = false) => {
  writeFileSync(path, `#!/bin/sh\necho ${name} >> '${markers}/ran'\nenv > '${markers}/env-${name}'\n${filter ? 'cat\n' : ''}`);
  chmodSync(path, 0o755);
};

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-host-git-')));
  root = join(base, 'project');
  markers = join(base, 'markers');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(markers);
  const git = (...args: string[]) => execFileSync('git', ['-C', root, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args]);
  git('init', '-q');
  writeFileSync(join(root, '.gitignore'), '.stagecraft/\n');
  writeFileSync(join(root, '.gitattributes'), '*.js filter=evil\n');
  writeFileSync(join(root, 'src', 'a.js'), 'a\n');
  git('add', '-A');
  git('commit', '-qm', 'init');
  for (const hook of HOOKS) script(join(root, '.git', 'hooks', hook), hook);
  script(join(base, 'fsmonitor.sh'), 'fsmonitor');
  script(join(base, 'smudge.sh'), 'smudge', true);
  git('config', 'core.fsmonitor', join(base, 'fsmonitor.sh'));
  git('config', 'filter.evil.smudge', join(base, 'smudge.sh'));
  git('config', 'filter.evil.clean', join(base, 'smudge.sh'));
  git('config', 'filter.evil.required', 'true');
  for (const [name, value] of Object.entries(SECRETS)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(base, { recursive: true, force: true });
});

const ran = () => (existsSync(join(markers, 'ran')) ? readFileSync(join(markers, 'ran'), 'utf8').trim().split('\n').sort() : []);
const secretsIn = (text: string) => Object.values(SECRETS).filter((secret) => text.includes(secret));

describe('git run by the services on the host', () => {
  it('the planted project does run hooks, fsmonitor and filters, with the secrets, under a plain git (the control)', () => {
    // Jest gives a test its own copy of process.env: the service's environment is passed explicitly.
    const service = { stdio: 'ignore' as const, env: { ...process.env } };
    execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', join(base, 'control'), 'HEAD'], service);
    execFileSync('git', ['-C', root, 'status'], service);
    expect(ran()).toEqual(expect.arrayContaining(['fsmonitor', 'post-checkout', 'smudge']));
    expect(secretsIn(readFileSync(join(markers, 'env-post-checkout'), 'utf8'))).toEqual(Object.values(SECRETS));
  });

  it('runs no hook, fsmonitor or filter while worktrees are made, merged and removed', async () => {
    expect(await isolationFor(root)).toBe('git-worktree');
    const worktree = { path: join(root, '.stagecraft', 'worktrees', 'wf', 'one.1'), method: 'git-worktree' as const };
    await prepareWorktree(root, worktree);
    // Checked out as stored: the filter did not run.
    expect(readFileSync(join(worktree.path, 'src', 'a.js'), 'utf8')).toBe('a\n');
    writeFileSync(join(worktree.path, 'src', 'b.js'), 'b\n');
    expect(await mergeWorktrees(root, [{ agentId: 'one', worktree }])).toEqual({
      merged: [{ agentId: 'one', files: ['src/b.js'] }],
      conflicts: [],
    });
    await removeWorktrees(root, 'wf');
    expect(execFileSync('git', ['-C', root, 'worktree', 'list']).toString()).not.toContain(worktree.path);
    expect(ran()).toEqual([]);
    expect(readdirSync(markers)).toEqual([]);
  });

  it('gives git and whatever it starts an environment of its own, without the service’s secrets', async () => {
    const { stdout } = await hostGit(root, ['envdump'], [['alias.envdump', '!env']]);
    expect(secretsIn(stdout)).toEqual([]);
    const names = stdout
      .split('\n')
      .map((line) => line.slice(0, line.indexOf('=')))
      .filter((name) => name !== '');
    expect(names.filter((name) => /^(NATS_|STAGECRAFT_|OPENAI_|ANTHROPIC_)/.test(name))).toEqual([]);
    expect(stdout).toContain('GIT_CONFIG_NOSYSTEM=1\n');
    expect(stdout).toContain('HOME=/nonexistent\n');
    // The hardening reaches the git processes git itself starts.
    const { stdout: hooksPath } = await hostGit(root, ['nested'], [['alias.nested', '!git config core.hooksPath']]);
    expect(hooksPath.trim()).toBe('/dev/null');
  });

  it('never uses a repository above the project root', async () => {
    const inner = join(root, 'src');
    expect(await isolationFor(inner)).toBe('copy');
    await expect(hostGit(inner, ['rev-parse', '--show-toplevel'])).rejects.toThrow();
  });

  it('merges nothing into .git and nothing through a symlink of the root that leads out', async () => {
    const outside = join(base, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(root, 'out'));
    const worktree = { path: join(root, '.stagecraft', 'worktrees', 'wf', 'two.1'), method: 'copy' as const };
    await prepareWorktree(root, worktree);
    rmSync(join(worktree.path, 'out'));
    mkdirSync(join(worktree.path, 'out'));
    writeFileSync(join(worktree.path, 'out', 'escaped.txt'), 'x\n');
    mkdirSync(join(worktree.path, '.GIT', 'hooks'), { recursive: true });
    writeFileSync(join(worktree.path, '.GIT', 'hooks', 'post-checkout'), '#!/bin/sh\n');
    writeFileSync(join(worktree.path, 'kept.txt'), 'kept\n');
    const result = await mergeWorktrees(root, [{ agentId: 'two', worktree }]);
    expect(result).toEqual({
      merged: [{ agentId: 'two', files: ['kept.txt'] }],
      conflicts: [expect.objectContaining({ path: 'out/escaped.txt', agentIds: ['two'], reason: 'unwritable' })],
    });
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(root, '.GIT'))).toBe(false);
    expect(readFileSync(join(root, 'kept.txt'), 'utf8')).toBe('kept\n');
  });
});
