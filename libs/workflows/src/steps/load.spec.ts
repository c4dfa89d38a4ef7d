import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWorkflowDirectory, parseWorkflowFile } from './load';

const valid = {
  id: 'spec',
  name: 'Spec',
  description: 'Writes a spec.',
  version: '1.0.0',
  steps: [{ id: 'ask', title: 'Ask', prompt: 'Describe it.' }],
};
const text = (value: unknown) => JSON.stringify(value, null, 2);

describe('parseWorkflowFile', () => {
  it('accepts a valid file whose id is its name', () => {
    expect(parseWorkflowFile('workflows/spec.json', text(valid))).toEqual(valid);
  });

  it('names the file and the field of every problem', () => {
    const bad = {
      ...valid,
      steps: [
        { id: 'ask', title: 'Ask', prompt: 'Describe it.', agentRole: 'Be nice.' },
        { id: 'Bad Id', title: '', prompt: 'x' },
      ],
    };
    expect(() => parseWorkflowFile('workflows/spec.json', text(bad))).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        message: expect.stringMatching(
          /^invalid workflow workflows\/spec\.json: steps\[0\]\.agentRole: Too small.*; steps\[1\]\.id: lower-case words.*; steps\[1\]\.title: /,
        ),
        issues: expect.arrayContaining([expect.objectContaining({ path: ['workflows/spec.json', 'steps', 0, 'agentRole'] })]),
      }),
    );
  });

  it('names the file when it is not JSON', () => {
    expect(() => parseWorkflowFile('workflows/spec.json', '{ "id": ')).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        message: expect.stringMatching(/^invalid workflow workflows\/spec\.json: \(file\): not JSON/),
      }),
    );
  });

  it('requires the id to match the file name', () => {
    expect(() => parseWorkflowFile('workflows/other.json', text(valid))).toThrow(
      expect.objectContaining({ message: 'invalid workflow workflows/other.json: id: "spec" differs from the file name; use "other"' }),
    );
  });
});

describe('loadWorkflowDirectory', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-workflows-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loads every JSON file and ignores the rest', () => {
    writeFileSync(join(dir, 'spec.json'), text(valid));
    writeFileSync(join(dir, 'review.json'), text({ ...valid, id: 'review' }));
    writeFileSync(join(dir, 'README.md'), '# notes');
    expect(loadWorkflowDirectory(dir).ids()).toEqual(['review', 'spec']);
  });

  it('reports a bad file (path and problem) and skips it; the others load, and naming it gives the problem', () => {
    writeFileSync(join(dir, 'spec.json'), text(valid));
    writeFileSync(join(dir, 'broken.json'), text({ ...valid, id: 'broken', version: 'one' }));
    const catalog = loadWorkflowDirectory(dir);
    expect(catalog.ids()).toEqual(['spec']);
    expect(catalog.get('spec')).toEqual(valid);
    expect(catalog.skipped()).toEqual([
      { id: 'broken', file: join(dir, 'broken.json'), problem: expect.stringContaining('version: a semantic version') },
    ]);
    expect(() => catalog.get('broken')).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        issues: [expect.objectContaining({ message: expect.stringContaining(join(dir, 'broken.json')) })],
      }),
    );
    expect(() => catalog.get('absent')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('fails clearly when the directory is missing', () => {
    expect(() => loadWorkflowDirectory(join(dir, 'absent'))).toThrow(/ENOENT/);
  });
});
