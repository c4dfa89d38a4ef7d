import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS, ToolContext } from './context';
import { executeTool } from './registry';

let root: string;
let progress: string[];
let context: ToolContext;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-read-')));
  progress = [];
  context = { root, allowedCommands: [], progress: (m) => progress.push(m) };
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.ts'), 'one\ntwo\nthree\nfour\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('read_file', () => {
  it('returns a whole file as it is on disk', async () => {
    await expect(executeTool('read_file', { path: 'src/a.ts' }, context)).resolves.toEqual({
      ok: true,
      output: 'one\ntwo\nthree\nfour\n',
      truncated: false,
    });
    expect(progress).toEqual(['read src/a.ts lines 1-4 of 4']);
  });

  it('returns a line range, clamped to the end of the file', async () => {
    expect((await executeTool('read_file', { path: 'src/a.ts', startLine: 2, endLine: 3 }, context)).output).toBe('two\nthree');
    expect((await executeTool('read_file', { path: 'src/a.ts', startLine: 3, endLine: 99 }, context)).output).toBe('three\nfour');
  });

  it('caps a large file and says where to continue', async () => {
    const line = 'x'.repeat(99);
    writeFileSync(join(root, 'big.txt'), `${line}\n`.repeat(5000));
    const result = await executeTool('read_file', { path: 'big.txt' }, context);
    expect(result.ok).toBe(true);
    expect(result.truncated).toBe(true);
    const shown = Math.floor(LIMITS.readFileBytes / 100);
    expect(result.output).toContain(`[truncated: lines 1-${shown} of 5000 shown`);
    expect(result.output).toContain(`startLine=${shown + 1}`);
    expect(Buffer.byteLength(result.output)).toBeLessThan(LIMITS.readFileBytes + 300);
  });

  it('cuts a single line longer than the whole limit', async () => {
    writeFileSync(join(root, 'min.js'), 'y'.repeat(LIMITS.readFileBytes * 2));
    const result = await executeTool('read_file', { path: 'min.js' }, context);
    expect(result).toMatchObject({ ok: true, truncated: true });
    expect(result.output).toContain('line 1 alone is over');
  });

  it('fails with guidance for a missing file, a directory, a binary file and a range past the end', async () => {
    const missing = await executeTool('read_file', { path: 'src/nope.ts' }, context);
    expect(missing.ok).toBe(false);
    expect(missing.output).toMatch(/^tool_error: NOT_FOUND\nproblem: 'src\/nope.ts' does not exist\nretry: .*list_dir/);
    expect((await executeTool('read_file', { path: 'src' }, context)).output).toContain('tool_error: NOT_A_FILE');
    writeFileSync(join(root, 'img.png'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    expect((await executeTool('read_file', { path: 'img.png' }, context)).output).toContain('tool_error: BINARY_FILE');
    const past = await executeTool('read_file', { path: 'src/a.ts', startLine: 9 }, context);
    expect(past.output).toContain('tool_error: OUT_OF_RANGE');
    expect(past.output).toContain('startLine between 1 and 4');
  });

  it('answers invalid arguments with the issues and the expected signature', async () => {
    const result = await executeTool('read_file', { file_path: 'src/a.ts' }, context);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('tool_error: INVALID_ARGUMENTS');
    expect(result.output).toContain('read_file {path: string, startLine?: integer, endLine?: integer}');
    expect(result.output).toContain('path:');
    const backwards = await executeTool('read_file', { path: 'src/a.ts', startLine: 3, endLine: 2 }, context);
    expect(backwards.output).toContain('endLine: endLine must not be before startLine');
  });

  it('refuses paths that leave the root as a failed call, not an exception', async () => {
    symlinkSync('/etc', join(root, 'etc'));
    for (const path of ['../x', '/etc/hostname', 'etc/hostname', 'a\0b']) {
      const result = await executeTool('read_file', { path }, context);
      expect(result.ok).toBe(false);
      expect(result.output).toContain('tool_error: FORBIDDEN_PATH');
    }
  });
});
