import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileAccess, LIMITS, ToolContext } from './context';
import { executeTool } from './registry';

/** An editor's buffers, as the port sees them: a map of absolute paths, and every write it was handed. */
function editor(buffers: Record<string, string> = {}) {
  const writes: [string, string][] = [];
  const files: FileAccess = {
    readText: async (path) => buffers[path] ?? null,
    writeText: async (path, content) => void writes.push([path, content]),
  };
  return { files, writes };
}

let root: string;
let context: ToolContext;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-files-')));
  writeFileSync(join(root, 'README.md'), 'on disk\n');
  context = { root, allowedCommands: [], progress: () => undefined };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('read_file and write_file through an editor (context.files)', () => {
  it('read_file returns the editor buffer of a file it checked on disk, the disk when the editor has none', async () => {
    const { files } = editor({ [join(root, 'README.md')]: 'unsaved\n' });
    expect(await executeTool('read_file', { path: 'README.md' }, { ...context, files })).toMatchObject({
      ok: true,
      output: expect.stringContaining('unsaved'),
    });
    expect(await executeTool('read_file', { path: 'README.md' }, { ...context, files: editor().files })).toMatchObject({
      output: expect.stringContaining('on disk'),
    });
    // A buffer of a file that is not on disk is not read: the checks are the disk's.
    const ghost = editor({ [join(root, 'GHOST.md')]: 'x' });
    expect(await executeTool('read_file', { path: 'GHOST.md' }, { ...context, files: ghost.files })).toMatchObject({ ok: false });
  });

  it('write_file hands the editor the text instead of writing the disk, with the diff against its buffer', async () => {
    const { files, writes } = editor({ [join(root, 'README.md')]: 'unsaved\n' });
    const result = await executeTool('write_file', { path: 'README.md', content: 'new\n' }, { ...context, files });
    expect(result).toMatchObject({
      ok: true,
      changes: [{ path: 'README.md', kind: 'modified', diff: expect.stringContaining('-unsaved') }],
    });
    expect(writes).toEqual([[join(root, 'README.md'), 'new\n']]);
    expect(await executeTool('read_file', { path: 'README.md' }, context)).toMatchObject({ output: expect.stringContaining('on disk') });
  });

  it('holds the editor’s text to the read limit: a read fails TOO_LARGE, a write goes on without a diff', async () => {
    const huge = 'x'.repeat(LIMITS.readFileMaxSize + 1);
    const { files, writes } = editor({ [join(root, 'README.md')]: huge });
    expect(await executeTool('read_file', { path: 'README.md' }, { ...context, files })).toMatchObject({
      ok: false,
      output: expect.stringContaining('TOO_LARGE'),
    });
    const written = await executeTool('write_file', { path: 'README.md', content: 'new\n' }, { ...context, files });
    expect(written).toMatchObject({ ok: true, changes: [{ path: 'README.md', added: 0, removed: 0 }] });
    expect(writes).toEqual([[join(root, 'README.md'), 'new\n']]);
  });

  it('a path the tool refuses never reaches the editor', async () => {
    mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
    symlinkSync('/etc/passwd', join(root, 'link'));
    const { files, writes } = editor();
    for (const path of ['.git/hooks/pre-commit', '../outside.md', 'link'])
      expect(await executeTool('write_file', { path, content: 'x' }, { ...context, files })).toMatchObject({ ok: false });
    expect(writes).toEqual([]);
    expect(existsSync(join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });
});
