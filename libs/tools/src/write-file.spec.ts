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
    expect(result).toEqual({ ok: true, truncated: false, output: 'wrote 7 bytes to src/new/dir/file.ts (created)' });
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

  it('requires content', async () => {
    expect((await executeTool('write_file', { path: 'a.txt' }, context)).output).toContain('write_file {path: string, content: string}');
  });
});
