import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolContext } from './context';
import { executeTool } from './registry';

let root: string;
let outside: string;
let context: ToolContext;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-write-')));
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-write-outside-')));
  context = { root, allowedCommands: [], progress: () => undefined };
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('write_file', () => {
  it('creates a file and its missing parent directories', async () => {
    const result = await executeTool('write_file', { path: 'src/new/dir/file.ts', content: 'héllo\n' }, context);
    expect(result).toEqual({
      ok: true,
      truncated: false,
      output: 'wrote 7 bytes to src/new/dir/file.ts (created)',
      changes: [
        {
          path: 'src/new/dir/file.ts',
          kind: 'created',
          added: 1,
          removed: 0,
          diff: '--- /dev/null\n+++ b/src/new/dir/file.ts\n@@ -0,0 +1,1 @@\n+héllo\n',
        },
      ],
    });
    expect(readFileSync(join(root, 'src/new/dir/file.ts'), 'utf8')).toBe('héllo\n');
  });

  it('replaces a file in place, keeping its permissions and leaving no temporary file', async () => {
    writeFileSync(join(root, 'run.sh'), 'old');
    chmodSync(join(root, 'run.sh'), 0o750);
    const result = await executeTool('write_file', { path: 'run.sh', content: 'new' }, context);
    expect(result.output).toContain('(replaced)');
    expect(readFileSync(join(root, 'run.sh'), 'utf8')).toBe('new');
    expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o750);
    expect(readdirSync(root)).toEqual(['run.sh']);
  });

  it('returns the diff against the content it replaced', async () => {
    writeFileSync(join(root, 'a.ts'), 'one\ntwo\nthree\n');
    const result = await executeTool('write_file', { path: 'a.ts', content: 'one\n2\nthree\nfour\n' }, context);
    expect(result.changes).toEqual([
      {
        path: 'a.ts',
        kind: 'modified',
        added: 2,
        removed: 1,
        diff: '--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n',
      },
    ]);
  });

  it('replaces a binary file and says only that it differs', async () => {
    writeFileSync(join(root, 'blob.bin'), Buffer.from([0, 1, 2, 0]));
    const result = await executeTool('write_file', { path: 'blob.bin', content: 'text now\n' }, context);
    expect(result.changes).toEqual([
      expect.objectContaining({ path: 'blob.bin', kind: 'modified', diff: expect.stringContaining('Binary files') }),
    ]);
    expect(readFileSync(join(root, 'blob.bin'), 'utf8')).toBe('text now\n');
  });

  it('never replaces a directory', async () => {
    mkdirSync(join(root, 'src'));
    const result = await executeTool('write_file', { path: 'src', content: 'x' }, context);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('tool_error: NOT_A_FILE');
    expect(statSync(join(root, 'src')).isDirectory()).toBe(true);
  });

  it('writes nothing outside the root, through ".." or a symlinked directory', async () => {
    symlinkSync(outside, join(root, 'out'));
    for (const path of ['../escape.txt', 'out/escape.txt', 'out/sub/escape.txt', join(outside, 'abs.txt')]) {
      const result = await executeTool('write_file', { path, content: 'x' }, context);
      expect(result.output).toContain('tool_error: FORBIDDEN_PATH');
    }
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(root, '..', 'escape.txt'))).toBe(false);
  });

  it('treats .git, .hg and .svn as read-only at any depth and in any case, through a symlink too', async () => {
    mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(root, '.git', 'config'), '[core]\n');
    mkdirSync(join(root, 'vendor', 'lib'), { recursive: true });
    writeFileSync(join(root, 'vendor', 'lib', '.git'), 'gitdir: ../../.git/modules/lib\n');
    symlinkSync(join(root, '.git'), join(root, 'meta'));
    const before = readFileSync(join(root, '.git', 'config'), 'utf8');
    const refused = [
      '.git/config',
      '.git/hooks/post-checkout',
      '.GIT/config',
      'vendor/lib/.git',
      'vendor/lib/.git/hooks/pre-commit',
      'vendor/.Hg/hgrc',
      '.svn/entries',
      'meta/config',
      'meta/hooks/post-merge',
      'src/../.git/config',
    ];
    for (const path of refused) {
      const result = await executeTool('write_file', { path, content: '[core]\n\tfsmonitor = /tmp/run-me\n' }, context);
      expect({ path, output: result.output }).toEqual({ path, output: expect.stringContaining('tool_error: FORBIDDEN_PATH') });
      expect(result.output).toContain('version-control metadata');
    }
    expect(readFileSync(join(root, '.git', 'config'), 'utf8')).toBe(before);
    expect(readdirSync(join(root, '.git', 'hooks'))).toEqual([]);
    expect(readFileSync(join(root, 'vendor', 'lib', '.git'), 'utf8')).toBe('gitdir: ../../.git/modules/lib\n');
    expect(existsSync(join(root, '.GIT'))).toBe(false);
    expect(existsSync(join(root, 'vendor', '.Hg'))).toBe(false);
    expect(existsSync(join(root, '.svn'))).toBe(false);
    // Names that only look alike are ordinary files.
    for (const path of ['.gitignore', '.github/workflows/ci.yml', 'docs/.git-notes', 'a.git']) {
      expect((await executeTool('write_file', { path, content: 'x' }, context)).ok).toBe(true);
    }
    // Reading the metadata stays allowed.
    expect(await executeTool('read_file', { path: '.git/config' }, context)).toEqual({ ok: true, truncated: false, output: before });
  });

  it('requires content', async () => {
    expect((await executeTool('write_file', { path: 'a.txt' }, context)).output).toContain('write_file {path: string, content: string}');
  });
});
