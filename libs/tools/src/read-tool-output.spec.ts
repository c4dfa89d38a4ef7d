import { ToolContext } from './context';
import { executeTool } from './registry';

const OUTPUT = Array.from({ length: 20 }, (_, i) => `row ${i + 1}`).join('\n');
/** The tool service's port: the run's own recorded outputs by call id, null for any other. */
const context: ToolContext = {
  root: '/',
  allowedCommands: [],
  progress: () => undefined,
  toolOutput: (callId) => Promise.resolve(callId === 'r1.m2.c1' ? OUTPUT : null),
};

describe('read_tool_output', () => {
  it('reads a line range of a recorded output, and the whole output without one', async () => {
    await expect(executeTool('read_tool_output', { callId: 'r1.m2.c1', startLine: 4, endLine: 6 }, context)).resolves.toEqual({
      ok: true,
      output: 'row 4\nrow 5\nrow 6',
      truncated: false,
    });
    expect((await executeTool('read_tool_output', { callId: 'r1.m2.c1', startLine: 19, endLine: 40 }, context)).output).toBe(
      'row 19\nrow 20',
    );
    expect((await executeTool('read_tool_output', { callId: 'r1.m2.c1' }, context)).output).toBe(OUTPUT);
  });

  it('fails with guidance for a call it is not given, a range past the end, or arguments out of shape', async () => {
    const other = await executeTool('read_tool_output', { callId: 'r2.m1.c1' }, context);
    expect(other).toMatchObject({ ok: false });
    expect(other.output).toContain('tool_error: NOT_FOUND');
    const past = await executeTool('read_tool_output', { callId: 'r1.m2.c1', startLine: 21 }, context);
    expect(past.output).toContain('tool_error: OUT_OF_RANGE');
    for (const args of [{ callId: '../run-x' }, { callId: 'r1.m2.c1', startLine: 5, endLine: 4 }, { callId: 'r1.m2.c1', extra: 1 }])
      expect((await executeTool('read_tool_output', args, context)).output).toContain('tool_error: INVALID_ARGUMENTS');
    // Without the service's port nothing can be read.
    const alone = await executeTool('read_tool_output', { callId: 'r1.m2.c1' }, { ...context, toolOutput: undefined });
    expect(alone.output).toContain('tool_error: NOT_FOUND');
  });
});
