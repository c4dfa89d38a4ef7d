import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ScriptedModelServer, demoScript, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from '../e2e/distributed-system';

/** `stagecraft mcp --nats-url`: the same tools over a distributed system, six services in their own processes. */
describe('stagecraft mcp --nats-url, over a distributed system', () => {
  const prefix = 'mcp';
  let dir: string;
  let project: string;
  let model: ScriptedModelServer;
  let system: DistributedSystem;
  let client: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-mcp-nats-'));
    project = join(dir, 'sample-project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    model = await startScriptedModelServer({ script: demoScript() });
    const storePath = join(dir, 'events.db');
    system = await startDistributedSystem({
      prefix,
      storePath,
      env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'scripted', STAGECRAFT_MODEL: 'stagecraft-scripted-demo' },
    });
    const inherited = Object.entries(process.env).filter((e): e is [string, string] => e[0] !== 'LOG_LEVEL' && e[1] !== undefined);
    client = new Client({ name: 'stagecraft-e2e', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs'), 'mcp', '--nats-url', system.nats.url, '--root', project],
        env: { ...Object.fromEntries(inherited), STAGECRAFT_SUBJECT_PREFIX: prefix, STAGECRAFT_STORE: `sqlite:${storePath}` },
        stderr: 'pipe',
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await system?.stop();
    await model?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('workflow_next answers byte for byte what the workflow.next subject answers over NATS', async () => {
    const args = { workflowId: 'feature-specification', completedSteps: [] };
    const reply = await system.bus.request(`${prefix}.workflow.next`, JSON.stringify(args), { timeoutMs: 5000 });
    const expected = JSON.stringify((JSON.parse(reply.body) as { data: unknown }).data);
    const result = (await client.callTool({ name: 'workflow_next', arguments: args })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: expected }]);
    expect(JSON.stringify(result.structuredContent)).toBe(expected);
  });

  it('chat runs on the distributed services; run_status and the timeline see the run', async () => {
    const chat = (await client.callTool({ name: 'chat', arguments: { message: 'What does this project do?', mode: 'chat' } }))
      .structuredContent as { status: string; runId: string; answer: string };
    expect(chat).toMatchObject({ status: 'completed', answer: expect.any(String) });
    expect(chat.answer.length).toBeGreaterThan(0);
    const status = (await client.callTool({ name: 'run_status', arguments: { runId: chat.runId } })).structuredContent;
    expect(status).toMatchObject({ run: { runId: chat.runId, status: 'completed' } });
    const { contents } = await client.readResource({ uri: `stagecraft://runs/${chat.runId}/timeline` });
    expect((contents[0] as { text: string }).text).toContain('RunCompleted');
  }, 60_000);

  it('a request the service refuses comes back as the structured error', async () => {
    const result = (await client.callTool({ name: 'run_status', arguments: { runId: 'no-such-run' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'NOT_FOUND', issues: [] });
  });
});
