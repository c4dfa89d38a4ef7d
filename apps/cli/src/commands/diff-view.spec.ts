import { FileChange } from '@stagecraft/contracts';
import { changedFiles, changedFilesLines, paint, printable, renderChange, renderDiff, wantsColour } from './diff-view';

const DIFF = '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n\\ No newline at end of file\n';
const change = (path: string, kind: FileChange['kind'], added: number, removed: number): FileChange => ({
  path,
  kind,
  added,
  removed,
  diff: '',
});

describe('renderDiff', () => {
  it('colours a unified diff on a terminal: bold headers, cyan hunks, green additions, red removals', () => {
    expect(renderDiff(DIFF, paint(true))).toEqual([
      '\x1b[1m--- a/src/a.ts\x1b[22m',
      '\x1b[1m+++ b/src/a.ts\x1b[22m',
      '\x1b[36m@@ -1,3 +1,3 @@\x1b[39m',
      ' one',
      '\x1b[31m-two\x1b[39m',
      '\x1b[32m+2\x1b[39m',
      ' three',
      '\x1b[2m\\ No newline at end of file\x1b[22m',
    ]);
  });

  it('prints the diff as it is without colour, and reads a removed "-- x" line as a removal, not a header', () => {
    expect(renderDiff(DIFF, paint(false))).toEqual(DIFF.split('\n').slice(0, -1));
    const tricky = '--- a/x\n+++ b/x\n@@ -1,2 +1,1 @@\n--- not a header\n keep\n';
    expect(renderDiff(tricky, paint(true))[3]).toBe('\x1b[31m--- not a header\x1b[39m');
  });

  it('clips a long diff and says how many lines were left out and where to see them all', () => {
    const long = `--- a/f\n+++ b/f\n@@ -0,0 +1,50 @@\n${Array.from({ length: 50 }, (_, i) => `+line ${i}`).join('\n')}\n`;
    const shown = renderDiff(long, paint(false), { maxLines: 10, runId: 'run-9' });
    expect(shown).toHaveLength(11);
    expect(shown.slice(0, 10)).toEqual(long.split('\n').slice(0, 10));
    expect(shown[10]).toBe('… 43 more lines not shown: stagecraft runs show run-9 --diffs');
    expect(renderDiff(DIFF, paint(false), { maxLines: 8, runId: 'run-9' })).toHaveLength(8);
  });

  it('shows the escape sequences of hostile file text instead of obeying them', () => {
    const [line] = renderDiff('+\x1b]0;pwned\x07 \x1b[2J\r\n', paint(false));
    expect(line).toBe('+\uFFFD]0;pwned\uFFFD \uFFFD[2J');
    expect(printable('tab\tand\nnewline')).toBe('tab\tand\nnewline');
  });
});

describe('colour', () => {
  it('is used on a terminal only, and never with NO_COLOR set', () => {
    expect(wantsColour({ isTTY: true }, {})).toBe(true);
    expect(wantsColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour({ isTTY: false }, {})).toBe(false);
    expect(wantsColour({}, {})).toBe(false);
  });
});

describe('renderChange', () => {
  it('names the file with its lines added and removed, then the diff, indented, and says when the recorded diff was cut', () => {
    const lines = renderChange({ path: 'src/a.ts', kind: 'created', added: 1, removed: 0, diff: DIFF, diffTruncated: true }, paint(false));
    expect(lines[0]).toBe('  ✎ src/a.ts +1 −0 (created)');
    expect(lines[1]).toBe('    --- a/src/a.ts');
    expect(lines.at(-1)).toBe('    … the recorded diff ends here (cut at its size limit)');
  });
});

describe('the closing summary', () => {
  it('lists each changed file once, summing its writes, and leaves out a file the run created and deleted', () => {
    const files = changedFiles([
      change('NOTES.md', 'created', 2, 0),
      change('src/a.ts', 'modified', 1, 1),
      change('NOTES.md', 'modified', 3, 1),
      change('tmp.txt', 'created', 1, 0),
      change('old.ts', 'deleted', 0, 9),
      change('tmp.txt', 'deleted', 0, 1),
    ]);
    expect(files).toEqual([
      { path: 'NOTES.md', kind: 'created', added: 5, removed: 1 },
      { path: 'src/a.ts', kind: 'modified', added: 1, removed: 1 },
      { path: 'old.ts', kind: 'deleted', added: 0, removed: 9 },
    ]);
    expect(changedFilesLines(files, paint(false))).toEqual([
      'changed 3 files:',
      '  NOTES.md +5 −1 (created)',
      '  src/a.ts +1 −1',
      '  old.ts +0 −9 (deleted)',
    ]);
    expect(changedFilesLines([], paint(false))).toEqual([]);
  });
});
