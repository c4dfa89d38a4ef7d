import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';
import { Host, startHost } from '@stagecraft/service-shell';
import { REPO_ROOT, eventually } from '@stagecraft/testing';

const CLI = join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs');
/** The bearer token the HTTP server is started with and every HTTP client sends. */
const TOKEN = randomBytes(32).toString('base64url');
/** No model key: the server runs the built-in scripted model. */
const env = (): Record<string, string> => {
  const inherited = Object.entries(process.env).filter(
    (entry): entry is [string, string] => entry[0] !== 'LOG_LEVEL' && entry[1] !== undefined,
  );
  return { ...Object.fromEntries(inherited), OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
};

interface Connection {
  client: Client;
  /** The HTTP endpoint, over Streamable HTTP. */
  url?: string;
  close(): Promise<void>;
}

async function overStdio(args: string[]): Promise<Connection> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], env: env(), stderr: 'pipe' });
  const client = new Client({ name: 'stagecraft-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

async function overHttp(args: string[]): Promise<Connection> {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'mcp', '--http', '0', ...args], {
    env: { ...env(), STAGECRAFT_MCP_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
      const found = /serving MCP on (http:\/\/\S+)/.exec(stderr);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`stagecraft mcp exited (${code}) before listening:\n${stderr}`)));
  });
  const client = new Client({ name: 'stagecraft-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return {
    client,
    url,
    async close() {
      await client.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      // Stdout is the protocol on stdio; over HTTP nothing is printed there either.
      expect(stdout).toBe('');
    },
  };
}

type Structured = Record<string, unknown>;
const structured = (result: unknown) => (result as CallToolResult).structuredContent as Structured;

describe.each([
  ['stdio', overStdio],
  ['Streamable HTTP', overHttp],
])('stagecraft mcp over %s, embedded, with the scripted model', (_transport, connect) => {
  let dir: string;
  let project: string;
  let mcp: Connection;
  let subjects: Host;
  let runId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-mcp-'));
    project = join(dir, 'sample-project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    mcp = await connect(['--root', project, '--store', `sqlite:${join(dir, 'events.db')}`]);
    // The subject itself, asked directly, for the tool's answer to be compared with.
    subjects = await startHost({
      definitions: [promptAssemblyService],
      transport: 'inproc',
      store: 'memory:',
      config: { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' },
    });
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await subjects?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the seven tools, each with the JSON Schema of its arguments, and the two resource templates', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'approve',
      'cancel_run',
      'chat',
      'run_status',
      'workflow_next',
      'workflow_start',
      'workflow_status',
    ]);
    for (const tool of tools) expect(tool.inputSchema).toMatchObject({ type: 'object', properties: expect.any(Object) });
    expect(tools.find((t) => t.name === 'workflow_next')?.inputSchema).toMatchObject({ required: ['workflowId'] });
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'stagecraft://runs/{runId}/timeline',
      'stagecraft://workflows/{workflowId}/tree',
    ]);
  });

  it('workflow_next answers exactly what the workflow.next subject answers', async () => {
    for (const args of [
      { workflowId: 'code-review', completedSteps: [] },
      { workflowId: 'code-review', completedSteps: ['review-scope'] },
    ]) {
      const expected = JSON.stringify(await subjects.ports.requester.request('workflow.next', args));
      const result = (await mcp.client.callTool({ name: 'workflow_next', arguments: args })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: expected }]);
      expect(JSON.stringify(result.structuredContent)).toBe(expected);
    }
  });

  it('chat runs a whole conversation and answers with its result; run_status and the timeline show the same run', async () => {
    const heard: string[] = [];
    const chat = structured(
      await mcp.client.callTool({ name: 'chat', arguments: { message: 'What does this project do?', mode: 'chat' } }, undefined, {
        onprogress: ({ message }) => void heard.push(String(message)),
      }),
    );
    // A client that asks for progress hears the run's steps as `stagecraft chat` prints them.
    expect(heard).toEqual(expect.arrayContaining([expect.stringContaining('▶ act')]));
    expect(chat).toMatchObject({
      status: 'completed',
      deliveryState: 'DONE',
      runId: expect.any(String),
      conversationId: expect.any(String),
    });
    expect(String(chat.answer).length).toBeGreaterThan(0);
    expect(chat.qaReport).toMatchObject({ verdict: expect.any(String) });
    runId = String(chat.runId);

    const status = structured(await mcp.client.callTool({ name: 'run_status', arguments: { runId } }));
    expect(status.run).toMatchObject({ runId, status: 'completed', userMode: 'chat', answer: chat.answer, pendingApproval: null });
    const summary = await eventually(async () => {
      const again = structured(await mcp.client.callTool({ name: 'run_status', arguments: { runId } }));
      return again.summary ?? undefined;
    }, 'the run in the runs view');
    expect(summary).toMatchObject({ runId, status: 'completed', deliveryState: 'DONE' });

    const { contents } = await mcp.client.readResource({ uri: `stagecraft://runs/${runId}/timeline` });
    const [text, json] = contents as { mimeType: string; text: string }[];
    expect(text.mimeType).toBe('text/plain');
    expect(text.text).toContain('RunStarted');
    expect(text.text).toContain('RunCompleted');
    const { events } = JSON.parse(json.text) as { events: { type: string }[] };
    expect(events[0].type).toBe('RunStarted');
    expect(events.at(-1)?.type).toBe('RunCompleted');
    // One line per event, then the run's answer in full.
    const [timeline, answer] = text.text.split('\nanswer:\n');
    expect(timeline.trim().split('\n')).toHaveLength(events.length);
    expect(answer.trim()).toBe(String(chat.answer).trim());
  }, 60_000);

  it('answers bad arguments with isError and the structured error { code, message, issues }', async () => {
    const badMode = (await mcp.client.callTool({ name: 'chat', arguments: { message: 'hi', mode: 'x' } })) as CallToolResult;
    expect(badMode.isError).toBe(true);
    expect(badMode.structuredContent).toMatchObject({
      code: 'VALIDATION',
      message: 'invalid arguments of chat',
      issues: [{ path: ['mode'] }],
    });
    expect(badMode.content).toEqual([{ type: 'text', text: expect.stringContaining('mode') }]);

    // A root outside --root is refused over stdio too, before any run starts.
    const outside = structured(await mcp.client.callTool({ name: 'chat', arguments: { message: 'hi', root: '/' } }));
    expect(outside).toMatchObject({ code: 'FORBIDDEN_PATH', issues: [{ path: ['root'] }] });

    const badId = structured(await mcp.client.callTool({ name: 'run_status', arguments: { runId: 'bad id!' } }));
    expect(badId).toMatchObject({ code: 'VALIDATION', issues: [{ path: ['runId'] }] });

    // A request the service refuses comes back the same way: nothing waits in a finished run.
    const refused = (await mcp.client.callTool({ name: 'approve', arguments: { id: runId, decision: 'approve' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ code: expect.any(String), message: expect.any(String), issues: expect.any(Array) });

    const unknown = await mcp.client.readResource({ uri: 'stagecraft://runs/no-such-run/timeline' }).then(
      () => null,
      (error: { code: number; data: unknown }) => error,
    );
    expect(unknown).toMatchObject({ code: -32002, data: { code: 'NOT_FOUND' } });
  });

  it('chat with approve answers status waiting with the pending approval; approve lets the run finish', async () => {
    const chat = structured(
      await mcp.client.callTool({
        name: 'chat',
        arguments: { message: 'Summarise this project in STAGECRAFT_NOTES.md', mode: 'agent', approve: 'writes' },
      }),
    );
    expect(chat).toMatchObject({ status: 'waiting', pendingApproval: { kind: 'tool_call', approvalId: expect.any(String) } });
    expect(existsSync(join(project, 'STAGECRAFT_NOTES.md'))).toBe(false);
    const approvalId = (chat.pendingApproval as { approvalId: string }).approvalId;
    const answer = structured(
      await mcp.client.callTool({ name: 'approve', arguments: { id: chat.runId, approvalId, decision: 'approve' } }),
    );
    expect(answer).toMatchObject({ id: chat.runId, target: 'run', decision: 'approve' });
    await eventually(
      async () => {
        const status = structured(await mcp.client.callTool({ name: 'run_status', arguments: { runId: chat.runId } }));
        return (status.run as { status: string }).status === 'completed' ? true : undefined;
      },
      'the approved run to complete',
      { timeoutMs: 30_000 },
    );
    expect(existsSync(join(project, 'STAGECRAFT_NOTES.md'))).toBe(true);
  }, 60_000);

  it('workflow_start starts a workflow; workflow_status and the tree resource show it', async () => {
    const started = structured(
      await mcp.client.callTool({ name: 'workflow_start', arguments: { goal: 'Describe this project', phases: ['discovery'] } }),
    );
    expect(started).toMatchObject({ workflowId: expect.any(String) });
    const workflowId = String(started.workflowId);
    // The scripted model answers the discovery orchestrator, its agents and its collector: the workflow runs to its end.
    const view = await eventually(
      async () => {
        const status = structured(await mcp.client.callTool({ name: 'workflow_status', arguments: { workflowId } }));
        return status.status === 'running' ? undefined : status;
      },
      'the workflow to end',
      { timeoutMs: 30_000 },
    );
    expect(view).toMatchObject({ workflowId, kind: 'phases', goal: 'Describe this project', status: 'completed' });
    const { contents } = await mcp.client.readResource({ uri: `stagecraft://workflows/${workflowId}/tree` });
    const tree = JSON.parse((contents[0] as { text: string }).text) as {
      workflowId: string;
      phases: { phase: string; agents: { role: string; run: { runId: string; status: string; timeline: string } }[] }[];
    };
    expect(tree).toMatchObject({ workflowId, status: 'completed', phases: [{ phase: 'discovery' }] });
    const agents = tree.phases.flatMap((p) => p.agents);
    expect(agents.map((a) => a.role)).toEqual(expect.arrayContaining(['orchestrator', 'agent', 'collector']));
    for (const { run } of agents)
      expect(run).toEqual(expect.objectContaining({ status: 'completed', timeline: `stagecraft://runs/${run.runId}/timeline` }));

    const badPhases = structured(
      await mcp.client.callTool({ name: 'workflow_start', arguments: { goal: 'g', phases: ['tickets', 'discovery'] } }),
    );
    expect(badPhases).toMatchObject({ code: 'VALIDATION', issues: [{ path: ['phases'] }] });
    const unknown = structured(await mcp.client.callTool({ name: 'workflow_status', arguments: { workflowId: 'no-such-workflow' } }));
    expect(unknown).toMatchObject({ code: 'NOT_FOUND' });
  }, 60_000);
});

describe('stagecraft mcp --http', () => {
  let dir: string;
  let mcp: Connection;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-mcp-http-'));
    mcp = await overHttp(['--root', dir, '--store', `sqlite:${join(dir, 'events.db')}`]);
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A raw request, with a Host header of the test's choosing. */
  const send = (path: string, headers: Record<string, string>, body: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { port } = new URL(mcp.url!);
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const accept = { accept: 'application/json, text/event-stream' };

  it('serves /mcp only, refuses a request addressed to another host, and an unknown session', async () => {
    expect((await send('/other', accept, initialize)).status).toBe(404);
    expect(await send('/mcp', { ...accept, host: 'attacker.example' }, initialize)).toMatchObject({ status: 403 });
    expect(await send('/mcp', { ...accept, 'mcp-session-id': 'gone' }, initialize)).toMatchObject({ status: 404 });
    expect(await send('/mcp', accept, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).toMatchObject({ status: 400 });
    expect(await send('/mcp', { ...accept, host: `localhost:${new URL(mcp.url!).port}` }, initialize)).toMatchObject({ status: 200 });
  });
});
