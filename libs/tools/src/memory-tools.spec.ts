import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeTool, toolSignature } from './registry';

let root: string;
beforeAll(() => (root = mkdtempSync(join(tmpdir(), 'stagecraft-memory-tools-'))));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const context = () => ({ root, allowedCommands: [], progress: () => undefined });

describe('memory tools', () => {
  it('describe their arguments for the model', () => {
    expect(toolSignature('memory_recall')).toBe('memory_recall {query: string, tier?: string, limit?: integer}');
    expect(toolSignature('memory_retain')).toBe('memory_retain {content: string, tier?: string, tags?: array}');
    expect(toolSignature('memory_reflect')).toBe('memory_reflect {query: string}');
  });

  it('fail with guidance, and do not throw, when no memory service is connected', async () => {
    const outcome = await executeTool('memory_recall', { query: 'build' }, context());
    expect(outcome).toMatchObject({ ok: false });
    expect(outcome.output).toContain('no memory service is connected');
  });

  it('refuse a run_outcome retain and unknown arguments before reaching the memory service', async () => {
    for (const args of [{ content: 'x', tier: 'run_outcome' }, { content: 'x', extra: 1 }, { content: '  ' }]) {
      const outcome = await executeTool('memory_retain', args, context());
      expect(outcome.output).toContain('tool_error: INVALID_ARGUMENTS');
    }
  });
});
