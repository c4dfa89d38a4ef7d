import { ErrorReply, StagecraftError } from '@stagecraft/contracts';
import type { McpContext } from './context';
import { toolError } from './server';
import { TOOLS, inputJsonSchema } from './tools';

/** Arguments are refused before anything is asked: a context whose every request fails shows that nothing was. */
const unreachable = {
  requester: { request: () => Promise.reject(new Error('no request expected')) },
  root: null,
} as unknown as McpContext;

const tool = (name: string) => TOOLS.find((t) => t.name === name)!;

describe('the MCP tools', () => {
  it('are the seven, each with an object schema of its arguments', () => {
    expect(TOOLS.map((t) => t.name)).toEqual([
      'workflow_next',
      'chat',
      'run_status',
      'cancel_run',
      'workflow_start',
      'workflow_status',
      'approve',
    ]);
    for (const t of TOOLS) expect(inputJsonSchema(t.input)).toMatchObject({ type: 'object', properties: expect.any(Object) });
    expect(inputJsonSchema(tool('chat').input)).toMatchObject({
      properties: { mode: { enum: ['chat', 'agent'], default: 'agent' }, approve: { enum: ['never', 'writes', 'commands'] } },
      required: ['message'],
    });
    expect(inputJsonSchema(tool('chat').input)).toMatchObject({
      properties: { limits: { properties: { maxToolIterations: { maximum: 200 }, maxDeliveryChecks: { maximum: 20 } } } },
    });
    expect(inputJsonSchema(tool('approve').input)).toMatchObject({ required: ['id', 'approvalId', 'decision'] });
  });

  it('refuse bad arguments with the structured error every subject answers', async () => {
    const refused = (name: string, args: unknown) =>
      tool(name)
        .run(unreachable, args)
        .then(
          () => null,
          (error: StagecraftError) => error.toReply(),
        );
    await expect(refused('chat', { message: 'hi', mode: 'x' })).resolves.toMatchObject({
      code: 'VALIDATION',
      message: 'invalid arguments of chat',
      issues: [{ path: ['mode'] }],
    });
    await expect(refused('run_status', { runId: 'bad id!' })).resolves.toMatchObject({ code: 'VALIDATION', issues: [{ path: ['runId'] }] });
    // Who cancels is the MCP client: an argument claiming otherwise is refused, not passed on.
    await expect(refused('cancel_run', { runId: 'r1', by: 'workflow' })).resolves.toMatchObject({ code: 'VALIDATION' });
    await expect(refused('cancel_run', { runId: 'r1', reason: 'x'.repeat(501) })).resolves.toMatchObject({
      code: 'VALIDATION',
      issues: [{ path: ['reason'] }],
    });
    await expect(refused('chat', { message: 'hi', limits: { maxToolIterations: 0 } })).resolves.toMatchObject({
      code: 'VALIDATION',
      issues: [{ path: ['limits', 'maxToolIterations'] }],
    });
    // No --root and none in the call: refused before the run starts.
    await expect(refused('chat', { message: 'hi' })).resolves.toMatchObject({ code: 'VALIDATION', issues: [{ path: ['root'] }] });
  });

  it('answer a failure as isError with readable text and the reply as structured content', () => {
    const reply: ErrorReply = {
      code: 'VALIDATION',
      message: 'invalid arguments of chat',
      issues: [{ path: ['mode'], message: 'bad mode' }],
    };
    expect(toolError(reply)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'VALIDATION: invalid arguments of chat\n- mode: bad mode' }],
      structuredContent: reply,
    });
  });
});
