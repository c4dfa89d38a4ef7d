import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolContext } from './context';
import { executeTool } from './registry';

let root: string;
let context: ToolContext;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-list-')));
  context = { root, allowedCommands: [], progress: () => undefined };
  for (const dir of ['src/lib/deep/deeper', 'node_modules/pkg', '.git/objects', 'docs']) mkdirSync(join(root, dir), { recursive: true });
  for (const file of [
    'b.txt',
    'a.txt',
    'src/index.ts',
    'src/lib/x.ts',
    'src/lib/deep/y.ts',
    'src/lib/deep/deeper/z.ts',
    'node_modules/pkg/index.js',
  ])
    writeFileSync(join(root, file), '');
  symlinkSync('/tmp', join(root, 'tmp-link'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('list_dir', () => {
  it('lists one level by default, sorted, with directories marked and dependencies left out', async () => {
    await expect(executeTool('list_dir', {}, context)).resolves.toEqual({
      ok: true,
      output: 'a.txt\nb.txt\ndocs/\nsrc/\ntmp-link@',
      truncated: false,
    });
  });

  it('descends up to the requested depth, never into symlinks', async () => {
    const result = await executeTool('list_dir', { path: 'src', depth: 3 }, context);
    expect(result.output.split('\n')).toEqual(['index.ts', 'lib/', 'lib/deep/', 'lib/deep/deeper/', 'lib/deep/y.ts', 'lib/x.ts']);
    expect((await executeTool('list_dir', { depth: 3 }, context)).output).not.toContain('tmp-link/');
  });

  it('says so when a directory is empty', async () => {
    expect((await executeTool('list_dir', { path: 'docs' }, context)).output).toBe('[docs is empty]');
  });

  it('fails with guidance for a missing path, a file, a depth over 3 and an escape', async () => {
    expect((await executeTool('list_dir', { path: 'nope' }, context)).output).toContain('tool_error: NOT_FOUND');
    const file = await executeTool('list_dir', { path: 'a.txt' }, context);
    expect(file.output).toContain('tool_error: NOT_A_DIRECTORY');
    expect(file.output).toContain("use read_file on 'a.txt'");
    expect((await executeTool('list_dir', { depth: 4 }, context)).output).toContain('tool_error: INVALID_ARGUMENTS');
    expect((await executeTool('list_dir', { path: '..' }, context)).output).toContain('tool_error: FORBIDDEN_PATH');
    expect((await executeTool('list_dir', { path: 'tmp-link' }, context)).output).toContain('tool_error: FORBIDDEN_PATH');
  });
});
