import { ToolFailureError } from '../outcome';
import { parsePatch } from './parse-patch';

const failureOf = (text: string) => {
  try {
    parsePatch(text);
  } catch (error) {
    if (error instanceof ToolFailureError) return error.failure;
    throw error;
  }
  throw new Error('expected the patch to be refused');
};

describe('parsePatch', () => {
  it('reads several files and hunks of a git diff, dropping the a/ and b/ prefixes', () => {
    const files = parsePatch(
      [
        'diff --git a/src/a.ts b/src/a.ts',
        'index 111..222 100644',
        '--- a/src/a.ts',
        '+++ b/src/a.ts',
        '@@ -1,2 +1,2 @@',
        ' one',
        '-two',
        '+TWO',
        '@@ -10 +10,2 @@ function x() {',
        ' ten',
        '+eleven',
        'diff --git a/b.ts b/b.ts',
        '--- a/b.ts\t2024-01-01 00:00:00',
        '+++ b/b.ts\t2024-01-01 00:00:00',
        '@@ -3,1 +3,0 @@',
        '-gone',
        '',
      ].join('\n'),
    );
    expect(files.map((f) => [f.oldPath, f.newPath, f.hunks.length])).toEqual([
      ['src/a.ts', 'src/a.ts', 2],
      ['b.ts', 'b.ts', 1],
    ]);
    expect(files[0].hunks[1]).toMatchObject({ header: '@@ -10 +10,2 @@', oldStart: 10, oldCount: 1 });
    expect(files[0].hunks[1].lines).toEqual([
      { op: ' ', text: 'ten' },
      { op: '+', text: 'eleven' },
    ]);
  });

  it('knows new and deleted files by /dev/null', () => {
    const [created, deleted] = parsePatch(
      '--- /dev/null\n+++ b/new.ts\n@@ -0,0 +1 @@\n+x\n--- a/old.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n',
    );
    expect([created.oldPath, created.newPath, deleted.oldPath, deleted.newPath]).toEqual([null, 'new.ts', 'old.ts', null]);
  });

  it('reads a removed "-- comment" line as a removal while the hunk still expects lines', () => {
    const [file] = parsePatch('--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n select 1;\n');
    expect(file.hunks[0].lines).toEqual([
      { op: '-', text: '-- old comment' },
      { op: '+', text: '++ new comment' },
      { op: ' ', text: 'select 1;' },
    ]);
  });

  it('tolerates miscounted headers and context lines whose leading space was stripped', () => {
    const [file] = parsePatch('--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n a\n\n-b\n+c\n d\n');
    expect(file.hunks[0].lines.map((l) => l.op + l.text)).toEqual([' a', ' ', '-b', '+c', ' d']);
  });

  it('records "No newline at end of file" for the side it follows', () => {
    const [file] = parsePatch('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n');
    expect(file.hunks[0]).toMatchObject({ oldEndsWithoutNewline: true, newEndsWithoutNewline: false });
  });

  it('refuses text that is not a unified diff, with the format to use', () => {
    const none = failureOf('please change line 3 to foo');
    expect(none.kind).toBe('PATCH_INVALID');
    expect(none.retry).toContain("'@@ -start,count +start,count @@'");
    expect(failureOf('@@ -1 +1 @@\n-a\n+b\n').problem).toContain('before any');
    expect(failureOf('--- a/x\n+++ b/x\n@@ bad @@\n').problem).toContain('malformed hunk header');
    expect(failureOf('--- a/x\n+++ b/x\n').problem).toContain('no hunks');
    expect(failureOf('--- a/x\n+++ b/x\n@@ -1 +1 @@\n same\n').problem).toContain('changes nothing');
  });
});
