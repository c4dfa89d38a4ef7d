import { ToolFailureError } from '../outcome';
import { applyHunks } from './apply-hunks';
import { parsePatch } from './parse-patch';

const apply = (original: string | null, patch: string) => applyHunks(original, parsePatch(patch)[0], 'f.ts');
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('applyHunks', () => {
  it('applies several hunks, each found near the line its header names even after earlier hunks moved lines', () => {
    const patch = '--- a/f.ts\n+++ b/f.ts\n@@ -2,2 +2,3 @@\n line 2\n+inserted\n line 3\n@@ -8,3 +9,2 @@\n line 8\n-line 9\n line 10\n';
    expect(apply(lines(10), patch)).toBe('line 1\nline 2\ninserted\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 10\n');
  });

  it('finds a hunk whose line numbers are off', () => {
    expect(apply(lines(6), '--- a/f.ts\n+++ b/f.ts\n@@ -1,2 +1,2 @@\n line 5\n-line 6\n+six\n')).toBe(
      'line 1\nline 2\nline 3\nline 4\nline 5\nsix\n',
    );
  });

  it("matches context that differs only in trailing whitespace, and keeps the file's own text for it", () => {
    expect(apply('a  \nb\n', '--- a/f.ts\n+++ b/f.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n')).toBe('a  \nc\n');
  });

  it('keeps CRLF line endings and a missing final newline', () => {
    expect(apply('a\r\nb\r\n', '--- a/f.ts\n+++ b/f.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n')).toBe('a\r\nc\r\n');
    expect(apply('a\nb', '--- a/f.ts\n+++ b/f.ts\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n')).toBe('a\nc\n');
    expect(apply('a\nb\n', '--- a/f.ts\n+++ b/f.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n')).toBe('a\nc');
  });

  it('creates and deletes whole files', () => {
    expect(apply(null, '--- /dev/null\n+++ b/f.ts\n@@ -0,0 +1,2 @@\n+x\n+y\n')).toBe('x\ny\n');
    expect(apply('x\ny\n', '--- a/f.ts\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n')).toBeNull();
  });

  it('names the hunk that does not apply and shows what the file has instead', () => {
    const patch = '--- a/f.ts\n+++ b/f.ts\n@@ -1,1 +1,1 @@\n-line 1\n+one\n@@ -3,2 +3,2 @@\n line 3\n-line four\n+four\n';
    let failure: ToolFailureError | undefined;
    try {
      apply(lines(5), patch);
    } catch (error) {
      failure = error as ToolFailureError;
    }
    expect(failure?.failure.kind).toBe('PATCH_REJECTED');
    expect(failure?.failure.problem).toBe(
      "hunk 2 of 2 for 'f.ts' (@@ -3,2 +3,2 @@) does not apply: its context and '-' lines are not in the file; nothing was written",
    );
    expect(failure?.failure.retry).toContain('around line 3');
    expect(failure?.failure.details).toBe('the hunk expects:\n    line 3\n    line four\nthe file has at line 3:\n    line 3\n    line 4');
  });

  it('refuses a deletion that leaves lines behind', () => {
    expect(() => apply('x\ny\n', '--- a/f.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n')).toThrow('leaves 1 of its lines');
  });

  it('never applies a later hunk above an earlier one', () => {
    const patch = '--- a/f.ts\n+++ b/f.ts\n@@ -3 +3 @@\n-same\n+changed\n@@ -1 +1 @@\n-same\n+again\n';
    expect(() => apply('x\ny\nsame\n', patch)).toThrow('hunk 2 of 2');
  });
});
