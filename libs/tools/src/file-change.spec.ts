import { FILE_CHANGE_DIFF_MAX_CHARS } from '@stagecraft/contracts';
import { applyPatch } from 'diff';
import { fileChange, opaqueFileChange, withDiff } from './file-change';

const numbered = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}`).join('\n') + '\n';

describe('fileChange', () => {
  it('shows an edit as a unified diff with three lines of context and git-style names', () => {
    const before = numbered(10);
    const after = before.replace('line 5\n', 'five\n');
    expect(fileChange('src/a.ts', before, after)).toEqual({
      path: 'src/a.ts',
      kind: 'modified',
      added: 1,
      removed: 1,
      diff: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+five\n line 6\n line 7\n line 8\n',
    });
  });

  it('names /dev/null for the absent side of a created or deleted file', () => {
    expect(fileChange('new.txt', null, 'x\ny\n')).toEqual({
      path: 'new.txt',
      kind: 'created',
      added: 2,
      removed: 0,
      diff: '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n',
    });
    expect(fileChange('old.txt', 'x\n', null)).toEqual({
      path: 'old.txt',
      kind: 'deleted',
      added: 0,
      removed: 1,
      diff: '--- a/old.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n',
    });
  });

  it('marks a missing final newline, and an unchanged file has headers and no hunks', () => {
    const change = fileChange('a', 'x\ny', 'x\nz');
    expect(change.diff).toContain('\\ No newline at end of file');
    expect([change.added, change.removed]).toEqual([1, 1]);
    expect(fileChange('a', 'same\n', 'same\n')).toMatchObject({ added: 0, removed: 0, diff: '--- a/a\n+++ b/a\n' });
  });

  it('gives a diff that turns the old text into the new one', () => {
    const before = numbered(40);
    const after = numbered(40).replace('line 3\n', '').replace('line 30\n', 'thirty\nline 30b\n') + 'tail\n';
    expect(applyPatch(before, fileChange('f', before, after).diff)).toBe(after);
  });

  it('cuts a long diff at a whole line and says so, while counting every line', () => {
    const after = numbered(20_000);
    const change = fileChange('big.txt', null, after);
    expect(change.added).toBe(20_000);
    expect(change.diffTruncated).toBe(true);
    expect(change.diff.length).toBeLessThanOrEqual(FILE_CHANGE_DIFF_MAX_CHARS);
    expect(change.diff.endsWith('\n')).toBe(true);
    expect(change.diff.startsWith('--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,20000 @@\n+line 1\n')).toBe(true);
    expect(
      change.diff
        .split('\n')
        .slice(3, -1)
        .every((l) => /^\+line \d+$/.test(l)),
    ).toBe(true);
  });

  it('shows a rewrite too different to diff line by line as the whole old text out and the new one in', () => {
    const before = numbered(5_000);
    const after = numbered(5_000, 100_000);
    const change = fileChange('rewritten.txt', before, after);
    expect([change.added, change.removed]).toEqual([5_000, 5_000]);
    expect(change.diff.startsWith('--- a/rewritten.txt\n+++ b/rewritten.txt\n@@ -1,5000 +1,5000 @@\n-line 1\n')).toBe(true);
  });

  it('stands a "Binary files differ" line for an old content that is no text', () => {
    expect(opaqueFileChange('img.png')).toEqual({
      path: 'img.png',
      kind: 'modified',
      added: 0,
      removed: 0,
      diff: '--- a/img.png\n+++ b/img.png\nBinary files a/img.png and b/img.png differ\n',
    });
  });

  it('holds a rewritten diff to the cap again', () => {
    const change = fileChange('a', 'x\n', 'y\n');
    expect(withDiff(change, change.diff.replace('y', 'z'))).toEqual({ ...change, diff: change.diff.replace('y', 'z') });
    const long = `${change.diff}${'+pad\n'.repeat(FILE_CHANGE_DIFF_MAX_CHARS / 5)}`;
    const held = withDiff(change, long);
    expect(held.diffTruncated).toBe(true);
    expect(held.diff.length).toBeLessThanOrEqual(FILE_CHANGE_DIFF_MAX_CHARS);
  });
});
