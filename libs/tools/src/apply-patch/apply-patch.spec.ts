import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolContext } from '../context';
import { executeTool } from '../registry';

let root: string;
let context: ToolContext;
const read = (path: string) => readFileSync(join(root, path), 'utf8');

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-patch-')));
  context = { root, allowedCommands: [], progress: () => undefined };
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n');
  writeFileSync(join(root, 'src', 'b.ts'), 'import { a } from "./a";\nconsole.log(a);\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const twoFiles = (secondContext: string) =>
  [
    '--- a/src/a.ts',
    '+++ b/src/a.ts',
    '@@ -1,2 +1,2 @@',
    '-export const a = 1;',
    '+export const a = 10;',
    ' export const b = 2;',
    '@@ -3 +3,2 @@',
    ' export const c = 3;',
    '+export const d = 4;',
    '--- a/src/b.ts',
    '+++ b/src/b.ts',
    '@@ -1,2 +1,2 @@',
    ` ${secondContext}`,
    '-console.log(a);',
    '+console.info(a);',
    '--- /dev/null',
    '+++ b/src/new/c.ts',
    '@@ -0,0 +1 @@',
    '+export const created = true;',
    '',
  ].join('\n');

describe('apply_patch', () => {
  it('applies several hunks across files and creates new ones', async () => {
    const result = await executeTool('apply_patch', { patch: twoFiles('import { a } from "./a";') }, context);
    expect(result).toEqual({
      ok: true,
      truncated: false,
      output: 'applied:\n  edit src/a.ts (2 hunks)\n  edit src/b.ts (1 hunk)\n  create src/new/c.ts (1 hunk)',
      changes: [
        {
          path: 'src/a.ts',
          kind: 'modified',
          added: 2,
          removed: 1,
          diff: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,4 @@\n-export const a = 1;\n+export const a = 10;\n export const b = 2;\n export const c = 3;\n+export const d = 4;\n',
        },
        {
          path: 'src/b.ts',
          kind: 'modified',
          added: 1,
          removed: 1,
          diff: '--- a/src/b.ts\n+++ b/src/b.ts\n@@ -1,2 +1,2 @@\n import { a } from "./a";\n-console.log(a);\n+console.info(a);\n',
        },
        {
          path: 'src/new/c.ts',
          kind: 'created',
          added: 1,
          removed: 0,
          diff: '--- /dev/null\n+++ b/src/new/c.ts\n@@ -0,0 +1,1 @@\n+export const created = true;\n',
        },
      ],
    });
    expect(read('src/a.ts')).toBe('export const a = 10;\nexport const b = 2;\nexport const c = 3;\nexport const d = 4;\n');
    expect(read('src/b.ts')).toBe('import { a } from "./a";\nconsole.info(a);\n');
    expect(read('src/new/c.ts')).toBe('export const created = true;\n');
  });

  it('writes nothing at all when one hunk of one file does not apply', async () => {
    const result = await executeTool('apply_patch', { patch: twoFiles('import { a } from "./elsewhere";') }, context);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('tool_error: PATCH_REJECTED');
    expect(result.changes).toBeUndefined();
    expect(result.output).toContain("hunk 1 of 1 for 'src/b.ts'");
    expect(result.output).toContain("retry: read_file 'src/b.ts'");
    expect(read('src/a.ts')).toBe('export const a = 1;\nexport const b = 2;\nexport const c = 3;\n');
    expect(read('src/b.ts')).toBe('import { a } from "./a";\nconsole.log(a);\n');
    expect(existsSync(join(root, 'src', 'new'))).toBe(false);
  });

  it('refuses to create a file that exists and to edit one that does not', async () => {
    const create = await executeTool('apply_patch', { patch: '--- /dev/null\n+++ b/src/a.ts\n@@ -0,0 +1 @@\n+x\n' }, context);
    expect(create.output).toContain('tool_error: ALREADY_EXISTS');
    const edit = await executeTool('apply_patch', { patch: '--- a/src/zz.ts\n+++ b/src/zz.ts\n@@ -1 +1 @@\n-x\n+y\n' }, context);
    expect(edit.output).toContain('tool_error: NOT_FOUND');
    expect(edit.output).toContain("'--- /dev/null'");
    expect(read('src/a.ts')).toContain('export const a = 1;');
  });

  it('deletes and renames files', async () => {
    const patch =
      '--- a/src/b.ts\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-import { a } from "./a";\n-console.log(a);\n--- a/src/a.ts\n+++ b/src/renamed.ts\n@@ -3 +3 @@\n-export const c = 3;\n+export const c = 30;\n';
    const result = await executeTool('apply_patch', { patch }, context);
    expect(result.output).toBe('applied:\n  delete src/b.ts (1 hunk)\n  edit src/renamed.ts (1 hunk)');
    // Writes first, then deletions, as they happened; a rename is its source deleted and its target created.
    expect(result.changes?.map(({ path, kind, added, removed }) => ({ path, kind, added, removed }))).toEqual([
      { path: 'src/renamed.ts', kind: 'created', added: 3, removed: 0 },
      { path: 'src/b.ts', kind: 'deleted', added: 0, removed: 2 },
      { path: 'src/a.ts', kind: 'deleted', added: 0, removed: 3 },
    ]);
    expect(result.changes?.[1].diff).toBe('--- a/src/b.ts\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-import { a } from "./a";\n-console.log(a);\n');
    expect(existsSync(join(root, 'src', 'b.ts'))).toBe(false);
    expect(existsSync(join(root, 'src', 'a.ts'))).toBe(false);
    expect(read('src/renamed.ts')).toBe('export const a = 1;\nexport const b = 2;\nexport const c = 30;\n');
  });

  it('applies two parts of one patch to the same file in sequence', async () => {
    const patch =
      '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const a = 1;\n+export const a = 5;\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const a = 5;\n+export const a = 6;\n';
    const result = await executeTool('apply_patch', { patch }, context);
    expect(result.ok).toBe(true);
    expect(read('src/a.ts').split('\n')[0]).toBe('export const a = 6;');
    // One change per file, from what the disk held before the patch to what it holds after.
    expect(result.changes).toEqual([expect.objectContaining({ path: 'src/a.ts', added: 1, removed: 1 })]);
    expect(result.changes?.[0].diff).toContain('-export const a = 1;\n+export const a = 6;\n');
  });

  it('refuses file headers that leave the root, before writing anything', async () => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-patch-outside-')));
    symlinkSync(outside, join(root, 'out'));
    try {
      for (const target of ['../evil.ts', 'out/evil.ts']) {
        const patch = `--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const a = 1;\n+hacked\n--- /dev/null\n+++ b/${target}\n@@ -0,0 +1 @@\n+x\n`;
        const result = await executeTool('apply_patch', { patch }, context);
        expect(result.output).toContain('tool_error: FORBIDDEN_PATH');
      }
      expect(existsSync(join(outside, 'evil.ts'))).toBe(false);
      expect(read('src/a.ts')).toContain('export const a = 1;');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('writes nothing into .git, .hg or .svn: not a new hook, not an edit, not a rename out of it', async () => {
    mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(root, '.git', 'config'), '[core]\n');
    const creation = (path: string) => `--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+#!/bin/sh\n`;
    const patches = [
      creation('.git/hooks/post-checkout'),
      creation('sub/.Git/hooks/pre-commit'),
      creation('.hg/hgrc'),
      '--- a/.git/config\n+++ b/.git/config\n@@ -1 +1,2 @@\n [core]\n+\tfsmonitor = /tmp/run-me\n',
      '--- a/.git/config\n+++ b/config.txt\n@@ -1 +1 @@\n-[core]\n+[core]\n',
      '--- a/src/a.ts\n+++ b/.svn/a.ts\n@@ -1 +1 @@\n-export const a = 1;\n+export const a = 1;\n',
    ];
    for (const patch of patches) {
      const result = await executeTool('apply_patch', { patch }, context);
      expect({ patch, output: result.output }).toEqual({ patch, output: expect.stringContaining('tool_error: FORBIDDEN_PATH') });
    }
    expect(read('.git/config')).toBe('[core]\n');
    expect(existsSync(join(root, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(existsSync(join(root, 'sub'))).toBe(false);
    expect(existsSync(join(root, '.hg'))).toBe(false);
    expect(existsSync(join(root, '.svn'))).toBe(false);
    expect(existsSync(join(root, 'config.txt'))).toBe(false);
    expect(read('src/a.ts')).toContain('export const a = 1;');
  });

  it('answers prose with the format it expects', async () => {
    const result = await executeTool('apply_patch', { patch: 'change a to 10' }, context);
    expect(result.output).toContain('tool_error: PATCH_INVALID');
  });
});
