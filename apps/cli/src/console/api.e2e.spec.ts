import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiV1 } from '@stagecraft/contracts';
import { EventStore, createSqliteEventStore } from '@stagecraft/event-store';
import { ScriptedModelServer, demoScript, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT, eventually } from '@stagecraft/testing';
import type { z } from 'zod';
import { DistributedSystem, startDistributedSystem } from '../e2e/distributed-system';

const CLI = join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs');
const TOKEN = randomBytes(32).toString('base64url');
const AUTH = { authorization: `Bearer ${TOKEN}` };
/** The machine is shared: generous bounds, never a timed assertion. */
const SLOW = { timeoutMs: 120_000, intervalMs: 200 };

const inherited = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[0] !== 'LOG_LEVEL' && e[1] !== undefined && !e[0].startsWith('STAGECRAFT_'),
    ),
  );

interface Deployment {
  base: string;
  project: string;
  /** The log the console reads, opened by the test too. */
  store: EventStore;
  close(): Promise<void>;
}

/** `stagecraft console` as a child process; resolves with its base URL once it prints where it listens. */
async function spawnConsole(args: string[], env: Record<string, string>): Promise<{ base: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'console', '--port', '0', ...args], {
    env: { ...inherited(), ...env, STAGECRAFT_API_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const found = /console on (http:\/\/[^/\s]+)\//.exec(out);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`stagecraft console exited (${code}) before listening:\n${out}\n${err}`)));
  });
  // The token came from the environment: it is never printed.
  expect(out).not.toContain(TOKEN);
  return { base, child };
}

const stop = async (child: ChildProcess) => {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
};

async function embedded(): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-api-'));
  const project = join(dir, 'sample-project');
  cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
  const storePath = join(dir, 'events.db');
  // No model key: the console's embedded services run the built-in scripted model.
  const { base, child } = await spawnConsole(['--store', `sqlite:${storePath}`], { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' });
  const store = createSqliteEventStore({ path: storePath });
  return {
    base,
    project,
    store,
    async close() {
      await stop(child);
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function distributed(): Promise<Deployment> {
  const prefix = 'api';
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-api-nats-'));
  const project = join(dir, 'sample-project');
  cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
  const storePath = join(dir, 'events.db');
  const model: ScriptedModelServer = await startScriptedModelServer({ script: demoScript() });
  const system: DistributedSystem = await startDistributedSystem({
    prefix,
    storePath,
    env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'scripted', STAGECRAFT_MODEL: 'stagecraft-scripted-demo' },
  });
  // The console signs in as the clients' role, like the CLI and the MCP server.
  const { base, child } = await spawnConsole(['--nats-url', system.nats.url], {
    STAGECRAFT_SUBJECT_PREFIX: prefix,
    STAGECRAFT_STORE: `sqlite:${storePath}`,
  });
  return {
    base,
    project,
    store: system.store,
    async close() {
      await stop(child);
      await system.stop();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A reply read as JSON and checked against its route's schema (or the error schema for a refusal). */
async function call<S extends z.ZodType>(
  base: string,
  path: string,
  schema: S,
  init: RequestInit = {},
): Promise<{ status: number; body: z.infer<S> }> {
  const reply = await fetch(`${base}${path}`, {
    ...init,
    headers: { ...AUTH, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });
  const json = (await reply.json()) as unknown;
  const parsed = (reply.ok ? schema : apiV1.ApiError).safeParse(json);
  if (!parsed.success)
    throw new Error(
      `${path} (${reply.status}) does not match its schema: ${parsed.error.message}\n${JSON.stringify(json).slice(0, 2_000)}`,
    );
  return { status: reply.status, body: parsed.data as z.infer<S> };
}
const post = <S extends z.ZodType>(base: string, path: string, schema: S, body: unknown) =>
  call(base, path, schema, { method: 'POST', body: JSON.stringify(body) });

interface Sse {
  id: string;
  event: string;
  data: { type: string; position?: string; metadata: { runId: string } };
}

/** Reads the event stream until `done` says so, then disconnects. */
async function readSse(url: string, headers: Record<string, string>, done: (message: Sse) => boolean, opened?: () => void): Promise<Sse[]> {
  const controller = new AbortController();
  const reply = await fetch(url, { headers: { ...AUTH, ...headers }, signal: controller.signal });
  opened?.();
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toContain('text/event-stream');
  const messages: Sse[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const timer = setTimeout(() => controller.abort(), SLOW.timeoutMs);
  try {
    for await (const chunk of reply.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((line) => !line.startsWith(':') && line.includes(': '))
            .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
        );
        if (fields.data === undefined) continue;
        const message = { id: fields.id, event: fields.event, data: JSON.parse(fields.data) as Sse['data'] };
        messages.push(message);
        if (done(message)) return messages;
      }
    }
  } catch (error) {
    throw new Error(
      `the stream ended before it was done (${messages.length} events: ${messages.map((m) => m.event).join(', ')}): ${String(error)}`,
    );
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  throw new Error(`the stream closed before it was done (${messages.map((m) => m.event).join(', ')})`);
}

/** A raw request, for headers fetch will not let a caller set (Host). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What a request could have started or answered; the services' own background work (memories of ended runs) is left out. */
const COMMANDED = ['RunStarted', 'WorkflowStarted', 'ApprovalGiven', 'ApprovalDenied', 'RunCancelled', 'RunContinued'];
const head = async (store: EventStore) => (await store.readAll({ types: COMMANDED })).length;

describe.each([
  ['embedded (stagecraft console --store)', embedded],
  ['distributed (stagecraft console --nats-url, six service processes)', distributed],
])('the console API, %s', (_name, deploy) => {
  let d: Deployment;
  let runId: string;
  let conversationId: string;

  beforeAll(async () => {
    d = await deploy();
  }, 180_000);
  afterAll(async () => d?.close(), 60_000);

  it('refuses without the token (401), and refuses a foreign Host or Origin (403); the page needs no token', async () => {
    const none = await fetch(`${d.base}/api/v1/runs`);
    expect(none.status).toBe(401);
    expect(apiV1.ApiError.parse(await none.json())).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(none.headers.get('www-authenticate')).toContain('stagecraft-api');
    const wrong = await fetch(`${d.base}/api/v1/runs`, { headers: { authorization: `Bearer ${'x'.repeat(43)}` } });
    expect(wrong.status).toBe(401);
    const host = await rawGet(d.base, '/api/v1/runs', { ...AUTH, host: 'evil.example:80' });
    expect(host.status).toBe(403);
    expect(apiV1.ApiError.parse(JSON.parse(host.body))).toMatchObject({ code: 'FORBIDDEN' });
    const origin = await fetch(`${d.base}/api/v1/runs`, { headers: { ...AUTH, origin: 'https://evil.example' } });
    expect(origin.status).toBe(403);
    const page = await fetch(`${d.base}/runs/anything`);
    // The built console (200) or the page saying it was not built (503); never a token refusal.
    expect([200, 503]).toContain(page.status);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  it('serves its OpenAPI 3.1 document with every route', async () => {
    const reply = await fetch(`${d.base}/api/openapi.json`, { headers: AUTH });
    const doc = (await reply.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const route of Object.values(apiV1.apiV1Routes))
      expect(Object.keys(doc.paths[route.path.replace(/:([A-Za-z]+)/g, '{$1}')] ?? {})).toContain(route.method.toLowerCase());
  });

  it('starts a chat that appears in the list and whose events stream live, resuming after a disconnect without gaps or repeats', async () => {
    const started = await post(d.base, '/api/v1/chats', apiV1.ChatReply, {
      message: 'Summarise this project in STAGECRAFT_NOTES.md',
      projectRoot: d.project,
      mode: 'agent',
      reasoning: false,
      approve: 'writes',
    });
    expect(started.status).toBe(202);
    ({ runId, conversationId } = started.body);
    const listed = await call(d.base, '/api/v1/runs', apiV1.RunsListReply);
    expect(listed.body.runs.map((r) => r.runId)).toContain(runId);

    // First connection: up to the approval the run waits for, then disconnect.
    const first = await readSse(`${d.base}/api/v1/events?runId=${runId}`, {}, (m) => m.event === 'ApprovalRequested');
    expect(first[0].event).toBe('RunStarted');
    const waiting = await eventually(
      async () => {
        const { body } = await call(d.base, '/api/v1/approvals', apiV1.ApprovalsReply);
        return body.approvals.find((a) => a.runId === runId);
      },
      'the approval to be listed',
      SLOW,
    );
    expect(waiting).toMatchObject({ target: 'run', id: runId, tool: 'write_file' });
    const answered = await post(d.base, `/api/v1/approvals/${encodeURIComponent(waiting.approvalId)}`, apiV1.ApprovalAnswerReplyV1, {
      decision: 'approve',
    });
    expect(answered).toEqual({ status: 200, body: { approvalId: waiting.approvalId, target: 'run', id: runId, decision: 'approve' } });

    // Second connection: after the last event seen, to the end.
    const second = await readSse(
      `${d.base}/api/v1/events?runId=${runId}`,
      { 'last-event-id': first.at(-1)!.id },
      (m) => m.event === 'RunCompleted',
    );
    const seen = [...first, ...second];
    for (const m of seen) {
      expect(apiV1.ApiFeedEvent.safeParse(m.data).success).toBe(true);
      expect({ id: m.id, type: m.event, run: m.data.metadata.runId }).toEqual({ id: m.data.position, type: m.data.type, run: runId });
    }
    const timeline = await call(d.base, `/api/v1/runs/${runId}/timeline`, apiV1.TimelineReply);
    // Every event of the run, once, in log order: nothing lost at the reconnect, nothing repeated.
    expect(seen.map((m) => m.id)).toEqual(timeline.body.events.map((e) => e.position));
  }, 240_000);

  it('answers every read route of the finished run with a reply its schema accepts', async () => {
    const run = await call(d.base, `/api/v1/runs/${runId}`, apiV1.RunDetail);
    expect(run.body).toMatchObject({ runId, conversationId, status: 'completed', pendingApprovals: [], answer: expect.any(String) });
    expect(run.body.tokens.input).toBeGreaterThan(0);
    const requests = await call(d.base, `/api/v1/runs/${runId}/requests`, apiV1.RequestsReply);
    expect(requests.body.requests.length).toBeGreaterThan(0);
    expect(requests.body.requests[0]).toMatchObject({
      messagesRestored: true,
      messages: expect.arrayContaining([expect.objectContaining({ role: 'system' })]),
    });
    const diffs = await call(d.base, `/api/v1/runs/${runId}/diffs`, apiV1.DiffsReply);
    expect(diffs.body.changes).toEqual([expect.objectContaining({ tool: 'write_file', path: 'STAGECRAFT_NOTES.md', kind: 'created' })]);
    const conversations = await call(d.base, '/api/v1/conversations', apiV1.ConversationsReply);
    expect(conversations.body.conversations.map((c) => c.conversationId)).toContain(conversationId);
    const conversation = await call(d.base, `/api/v1/conversations/${conversationId}`, apiV1.ConversationDetail);
    expect(conversation.body.turns[0]).toMatchObject({ runIds: [runId], userMessage: expect.stringContaining('STAGECRAFT_NOTES.md') });
    await call(d.base, '/api/v1/workflows', apiV1.WorkflowsReply);
    const memories = await call(d.base, `/api/v1/memories?projectRoot=${encodeURIComponent(d.project)}`, apiV1.MemoriesReply);
    expect(memories.status).toBe(200);
    await call(d.base, `/api/v1/memories?projectRoot=${encodeURIComponent(d.project)}&q=notes`, apiV1.MemoriesReply);
    const index = await call(d.base, `/api/v1/index?projectRoot=${encodeURIComponent(d.project)}`, apiV1.IndexReply);
    expect([200, 404]).toContain(index.status);
    const resumed = await post(d.base, `/api/v1/runs/${runId}/resume`, apiV1.ResumeReply, {});
    expect(resumed.body).toEqual({ runId, resumed: false, status: 'completed' });
  }, 120_000);

  /** A turn of the conversation that waits for its write's approval. */
  async function waitingTurn(): Promise<{ runId: string; approvalId: string }> {
    const { body } = await post(d.base, '/api/v1/chats', apiV1.ChatReply, {
      message: 'Summarise this project in STAGECRAFT_NOTES.md',
      projectRoot: d.project,
      conversationId,
      approve: 'writes',
    });
    const approval = await eventually(
      async () => {
        const { body: list } = await call(d.base, '/api/v1/approvals', apiV1.ApprovalsReply);
        return list.approvals.find((a) => a.runId === body.runId);
      },
      'the turn to wait for its approval',
      SLOW,
    );
    return { runId: body.runId, approvalId: approval.approvalId };
  }

  it('a denial is told to the run, which goes on to its end', async () => {
    const turn = await waitingTurn();
    const denied = await post(d.base, `/api/v1/approvals/${encodeURIComponent(turn.approvalId)}`, apiV1.ApprovalAnswerReplyV1, {
      decision: 'deny',
      reason: 'not now',
    });
    expect(denied.body.decision).toBe('deny');
    // `?lastEventId=` resumes as the header does: from the start of the log, this run's events only.
    const events = await readSse(`${d.base}/api/v1/events?runId=${turn.runId}&lastEventId=0`, {}, (m) =>
      ['RunCompleted', 'RunFailed'].includes(m.event),
    );
    expect(events.map((m) => m.event)).toContain('ApprovalDenied');
    expect(new Set(events.map((m) => m.data.metadata.runId))).toEqual(new Set([turn.runId]));
  }, 240_000);

  it('streams every run from the head of the log when no run and no position is named', async () => {
    const history = await head(d.store);
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const live = readSse(`${d.base}/api/v1/events`, {}, (m) => m.event === 'ApprovalRequested', opened);
    // The stream starts at the head once its headers arrive: a turn started after that is live, not history.
    await open;
    const turn = await waitingTurn();
    const events = await live;
    expect(events[0]).toMatchObject({ event: 'RunStarted', data: { metadata: { runId: turn.runId } } });
    expect(events.map((m) => m.data.metadata.runId).every((id) => id === turn.runId)).toBe(true);
    expect(history).toBeGreaterThan(0);
    await post(d.base, `/api/v1/runs/${turn.runId}/cancel`, apiV1.CancelReply, { reason: 'done looking' });
  }, 240_000);

  it('cancels a waiting run', async () => {
    const turn = await waitingTurn();
    const cancelled = await post(d.base, `/api/v1/runs/${turn.runId}/cancel`, apiV1.CancelReply, { reason: 'changed my mind' });
    expect(cancelled.body).toEqual({ runId: turn.runId, outcome: 'cancelled', status: 'cancelled' });
    const run = await call(d.base, `/api/v1/runs/${turn.runId}`, apiV1.RunDetail);
    expect(run.body).toMatchObject({ status: 'cancelled', cause: expect.stringContaining('changed my mind'), pendingApprovals: [] });
    const again = await post(d.base, `/api/v1/runs/${turn.runId}/cancel`, apiV1.CancelReply, {});
    expect(again.body.outcome).toBe('ended');
    // A person's cancelled run is taken up again (`RunContinued`) and driven on to its end.
    const resumed = await post(d.base, `/api/v1/runs/${turn.runId}/resume`, apiV1.ResumeReply, {});
    expect(resumed.body).toEqual({ runId: turn.runId, resumed: true, status: 'running' });
    const ended = await eventually(
      async () => {
        const { body } = await call(d.base, `/api/v1/runs/${turn.runId}`, apiV1.RunDetail);
        return body.status === 'running' ? undefined : body;
      },
      'the resumed run to end',
      SLOW,
    );
    expect(ended.status).toBe('completed');
    const { body: timeline } = await call(d.base, `/api/v1/runs/${turn.runId}/timeline`, apiV1.TimelineReply);
    expect(timeline.events.map((e) => e.type)).toEqual(expect.arrayContaining(['RunCancelled', 'RunContinued', 'RunCompleted']));
  }, 240_000);

  it('starts a workflow that is listed, and answers its tree with its agents’ runs', async () => {
    const started = await post(d.base, '/api/v1/workflows', apiV1.WorkflowStartedReply, {
      input: 'Describe this project',
      projectRoot: d.project,
      phases: ['discovery'],
    });
    expect(started.status).toBe(202);
    const { workflowRunId } = started.body;
    // The scripted model answers the discovery orchestrator, its agents and its collector: the workflow ends.
    const tree = await eventually(
      async () => {
        const { body } = await call(d.base, `/api/v1/workflows/${workflowRunId}`, apiV1.WorkflowDetail);
        return body.status === 'running' ? undefined : body;
      },
      'the workflow to end',
      SLOW,
    );
    expect(tree).toMatchObject({ workflowId: workflowRunId, goal: 'Describe this project', status: 'completed' });
    const agentRuns = tree.phases.flatMap((p) => p.agents.map((a) => a.runId));
    expect(agentRuns.length).toBeGreaterThan(0);
    const { body: list } = await call(d.base, '/api/v1/workflows', apiV1.WorkflowsReply);
    expect(list.workflows[0]).toMatchObject({ workflowId: workflowRunId, status: 'completed', runs: agentRuns.length });
    const { body: runs } = await call(d.base, `/api/v1/runs?workflowRunId=${workflowRunId}&limit=500`, apiV1.RunsListReply);
    expect(runs.runs.map((r) => r.runId).sort()).toEqual([...agentRuns].sort());
  }, 240_000);

  it('refuses bad input with { code, message, issues } and appends nothing', async () => {
    const before = await head(d.store);
    const refusals: [string, unknown, number, string][] = [
      ['/api/v1/chats', { message: '', projectRoot: d.project, mode: 'shout' }, 400, 'VALIDATION'],
      ['/api/v1/chats', { message: 'hi', projectRoot: d.project, extra: true }, 400, 'VALIDATION'],
      ['/api/v1/runs/no-such-run/cancel', {}, 404, 'NOT_FOUND'],
      ['/api/v1/approvals/no-such-approval', { decision: 'approve' }, 404, 'NOT_FOUND'],
      ['/api/v1/approvals/no-such-approval', { decision: 'maybe' }, 400, 'VALIDATION'],
      ['/api/v1/workflows', { input: '', projectRoot: d.project }, 400, 'VALIDATION'],
    ];
    for (const [path, body, status, code] of refusals) {
      const reply = await post(d.base, path, apiV1.ChatReply, body);
      expect({ path, status: reply.status, code: (reply.body as unknown as { code: string }).code }).toEqual({ path, status, code });
    }
    const unknownWorkflow = await call(d.base, '/api/v1/workflows/no-such-workflow', apiV1.WorkflowDetail);
    expect({ status: unknownWorkflow.status, code: (unknownWorkflow.body as unknown as { code: string }).code }).toEqual({
      status: 404,
      code: 'NOT_FOUND',
    });
    const notJson = await fetch(`${d.base}/api/v1/chats`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: '{"message":',
    });
    expect(notJson.status).toBe(400);
    expect(apiV1.ApiError.parse(await notJson.json()).code).toBe('VALIDATION');
    const huge = await fetch(`${d.base}/api/v1/chats`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'x'.repeat(1_100_000), projectRoot: d.project }),
    });
    expect(huge.status).toBe(413);
    expect(apiV1.ApiError.parse(await huge.json()).code).toBe('LIMIT_EXCEEDED');
    const badStream = await fetch(`${d.base}/api/v1/events?lastEventId=abc`, { headers: AUTH });
    expect(badStream.status).toBe(400);
    expect(await head(d.store)).toBe(before);
  }, 60_000);
});

describe('stagecraft serve with STAGECRAFT_API_PORT', () => {
  it('serves the console API beside the services, behind the same token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stagecraft-api-serve-'));
    const port = await new Promise<number>((resolve) => {
      const probe = createNetServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const child = spawn(process.execPath, [CLI, 'serve'], {
      env: {
        ...inherited(),
        NATS_URL: '',
        STAGECRAFT_STORE: `sqlite:${join(dir, 'events.db')}`,
        STAGECRAFT_HEALTH_PORT: '0',
        STAGECRAFT_API_PORT: String(port),
        STAGECRAFT_API_TOKEN: TOKEN,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('stagecraft serving')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
      });
      expect(out).toContain(`console on http://127.0.0.1:${port}/`);
      const base = `http://127.0.0.1:${port}`;
      expect((await fetch(`${base}/api/v1/runs`)).status).toBe(401);
      expect(await call(base, '/api/v1/runs', apiV1.RunsListReply)).toEqual({ status: 200, body: { runs: [] } });
    } finally {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
