import { EventData, RunEventType, apiV1, streams } from '@stagecraft/contracts';
import { EventStore, createMemoryEventStore } from '@stagecraft/event-store';
import type { Requester } from '@stagecraft/messaging';
import { createApi, matchRoute } from './router';
import { consoleViewReader } from './view/catch-up';

const AT = Date.parse('2026-11-01T10:00:00.000Z');
const at = (seconds: number) => new Date(AT + seconds * 1000).toISOString();

/** A requester that fails the test when asked: the read routes and refused requests never ask the system. */
const noRequests: Requester = {
  request: (subject) => Promise.reject(new Error(`unexpected request ${subject}`)),
};

let n = 0;
async function append<T extends RunEventType>(
  store: EventStore,
  runId: string,
  type: T,
  data: EventData<T>,
  seconds: number,
  conversationId = 'c1',
) {
  n += 1;
  await store.appendToStream(streams.run(runId), [
    { id: `e${n}`, type, data, metadata: { runId, conversationId, correlationId: 'k', occurredAt: at(seconds) } },
  ]);
}

const started = (runId: string, conversationId: string, userInput: string, workflowId?: string): EventData<'RunStarted'> =>
  ({
    runId,
    conversationId,
    userMode: 'agent',
    reasoningEnabled: false,
    userInput,
    projectRoot: '/work/p',
    ...(workflowId
      ? {
          agent: {
            workflowId,
            agentId: 'a1',
            agentType: 'discovery-agent',
            role: 'agent' as const,
            phase: 'discovery',
            contextId: 'w1/discovery/001/x',
            attempt: 1,
          },
        }
      : {}),
  }) as EventData<'RunStarted'>;

/** r1 (c1) completed DONE with a write and a QA finding, r2 (c2) failed, r3 (c1, a workflow's agent) running. */
async function threeRuns(store: EventStore): Promise<void> {
  await append(store, 'r1', 'RunStarted', started('r1', 'c1', 'write the notes\nplease'), 0);
  await append(
    store,
    'r1',
    'ModelRequested',
    {
      requestId: 'q1',
      stage: 'act',
      model: 'm',
      toolNames: ['write_file'],
      messageCount: 2,
      tokenEstimate: 900,
      messageHashes: [],
      newBodies: [],
    } as never,
    1,
  );
  await append(
    store,
    'r1',
    'ModelResponded',
    {
      requestId: 'q1',
      content: 'ok',
      toolCalls: [],
      usage: { promptTokens: 1000, completionTokens: 50, totalTokens: 1050, cachedPromptTokens: 250 },
      latencyMs: 5,
      finishReason: 'stop',
    } as never,
    2,
  );
  await append(
    store,
    'r1',
    'ToolCallCompleted',
    {
      callId: 'call1',
      tool: 'write_file',
      ok: true,
      output: 'written',
      truncated: false,
      durationMs: 3,
      changes: [{ path: 'NOTES.md', kind: 'created', added: 1, removed: 0, diff: '--- /dev/null\n+++ b/NOTES.md\n@@ -0,0 +1 @@\n+hi\n' }],
    } as never,
    3,
  );
  await append(
    store,
    'r1',
    'QAReportIssued',
    { report: { verdict: 'concerns', summary: 's', findings: [{ severity: 'minor', message: 'm' }] } },
    4,
  );
  await append(store, 'r1', 'RunCompleted', { deliveryState: 'DONE', answer: 'done' }, 10);
  await append(store, 'r2', 'RunStarted', started('r2', 'c2', 'second'), 20, 'c2');
  await append(store, 'r2', 'RunFailed', { code: 'TIMEOUT', reason: 'slow' }, 25, 'c2');
  await append(store, 'r3', 'RunStarted', started('r3', 'c1', 'third', 'w1'), 30);
}

describe('the console API over a log', () => {
  let store: EventStore;
  let handle: ReturnType<typeof createApi>;
  const get = (path: string) => {
    const url = new URL(path, 'http://x');
    return handle({ method: 'GET', path: url.pathname, query: url.searchParams });
  };

  beforeAll(async () => {
    store = createMemoryEventStore();
    await threeRuns(store);
    const ports = {
      log: store,
      requester: noRequests,
      restoreRequests: async () => [],
      prices: { m: { promptPerMTok: 1, cachedPromptPerMTok: 0.5, completionPerMTok: 2 } },
    };
    handle = createApi(ports, consoleViewReader(store));
  });
  afterAll(() => store.close());

  it('lists runs newest first as rows the schema accepts, with tokens, cache share, cost, QA and cause', async () => {
    const reply = await get('/api/v1/runs');
    expect(reply.status).toBe(200);
    const { runs, next } = apiV1.RunsListReply.parse(reply.body);
    expect(runs.map((r) => r.runId)).toEqual(['r3', 'r2', 'r1']);
    expect(next).toBeUndefined();
    const [, r2, r1] = runs;
    expect(r1).toMatchObject({
      status: 'completed',
      title: 'write the notes',
      durationMs: 10_000,
      delivery: 'DONE',
      qa: { verdict: 'concerns', findings: 1 },
    });
    expect(r1.tokens).toEqual({ input: 1000, output: 50, cached: 250 });
    expect(r1.cacheShare).toBe(0.25);
    // 750 fresh at 1 + 250 cached at 0.5 + 50 out at 2, per million.
    expect(r1.costUsd).toBeCloseTo(0.000975, 9);
    expect(r2).toMatchObject({ status: 'failed', cause: 'TIMEOUT: slow' });
  });

  it('pages with `next` without skipping or repeating, and filters by status, conversation and workflow', async () => {
    const first = apiV1.RunsListReply.parse((await get('/api/v1/runs?limit=2')).body);
    expect(first.runs.map((r) => r.runId)).toEqual(['r3', 'r2']);
    const second = apiV1.RunsListReply.parse((await get(`/api/v1/runs?limit=2&before=${first.next}`)).body);
    expect(second).toEqual({ runs: [expect.objectContaining({ runId: 'r1' })] });
    const ids = async (q: string) => apiV1.RunsListReply.parse((await get(`/api/v1/runs?${q}`)).body).runs.map((r) => r.runId);
    expect(await ids('status=running')).toEqual(['r3']);
    expect(await ids('conversationId=c1')).toEqual(['r3', 'r1']);
    expect(await ids('workflowRunId=w1')).toEqual(['r3']);
  });

  it('sees runs appended after its first read', async () => {
    await append(store, 'r4', 'RunStarted', started('r4', 'c4', 'fourth'), 40, 'c4');
    const { runs } = apiV1.RunsListReply.parse((await get('/api/v1/runs?limit=1')).body);
    expect(runs.map((r) => r.runId)).toEqual(['r4']);
  });

  it('answers a run, its timeline and its diffs from its stream', async () => {
    const detail = apiV1.RunDetail.parse((await get('/api/v1/runs/r1')).body);
    expect(detail).toMatchObject({
      userInput: 'write the notes\nplease',
      answer: 'done',
      contextWindow: 900,
      compactions: 0,
      pendingApprovals: [],
    });
    const timeline = apiV1.TimelineReply.parse((await get('/api/v1/runs/r1/timeline')).body);
    expect(timeline.events.map((e) => e.type)).toEqual([
      'RunStarted',
      'ModelRequested',
      'ModelResponded',
      'ToolCallCompleted',
      'QAReportIssued',
      'RunCompleted',
    ]);
    const positions = timeline.events.map((e) => Number(e.position));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    const diffs = apiV1.DiffsReply.parse((await get('/api/v1/runs/r1/diffs')).body);
    expect(diffs.changes).toEqual([
      expect.objectContaining({ callId: 'call1', tool: 'write_file', path: 'NOTES.md', kind: 'created', added: 1 }),
    ]);
  });

  it('groups conversations, latest first, each with its turns', async () => {
    const { conversations } = apiV1.ConversationsReply.parse((await get('/api/v1/conversations')).body);
    expect(conversations.map((c) => [c.conversationId, c.runs, c.title])).toEqual([
      ['c4', 1, 'fourth'],
      ['c1', 2, 'write the notes'],
      ['c2', 1, 'second'],
    ]);
    const c1 = apiV1.ConversationDetail.parse((await get('/api/v1/conversations/c1')).body);
    expect(c1.turns.map((t) => [t.runIds, t.userMessage, t.answer])).toEqual([
      [['r1'], 'write the notes\nplease', 'done'],
      [['r3'], 'third', undefined],
    ]);
  });

  it.each([
    ['/api/v1/runs?limit=0', 'limit'],
    ['/api/v1/runs?limit=501', 'limit'],
    ['/api/v1/runs?status=sleeping', 'status'],
    ['/api/v1/runs?before=abc', 'before'],
    ['/api/v1/runs?colour=red', ''],
    ['/api/v1/memories?projectRoot=relative/path', 'projectRoot'],
  ])('refuses %s with a VALIDATION error naming the field', async (path, field) => {
    const reply = await get(path);
    expect(reply.status).toBe(400);
    const body = apiV1.ApiError.parse(reply.body);
    expect(body.code).toBe('VALIDATION');
    expect(body.issues.length).toBeGreaterThan(0);
    if (field) expect(body.issues.map((i) => i.path[0])).toContain(field);
  });

  it('answers 404 for an unknown run or route, and refuses a bad body before asking the system', async () => {
    for (const path of ['/api/v1/runs/nobody', '/api/v1/runs/nobody/timeline', '/api/v1/conversations/nobody', '/api/v1/nothing']) {
      const reply = await get(path);
      expect({ path, status: reply.status, code: (reply.body as { code: string }).code }).toEqual({ path, status: 404, code: 'NOT_FOUND' });
    }
    const before = await store.readAll();
    const refused = await handle({
      method: 'POST',
      path: '/api/v1/chats',
      query: new URLSearchParams(),
      body: { message: ' ', projectRoot: '/p', mode: 'talk' },
    });
    expect(refused.status).toBe(400);
    expect(
      apiV1.ApiError.parse(refused.body)
        .issues.map((i) => i.path[0])
        .sort(),
    ).toEqual(['message', 'mode']);
    const unknownApproval = await handle({
      method: 'POST',
      path: '/api/v1/approvals/a1',
      query: new URLSearchParams(),
      body: { decision: 'approve' },
    });
    expect(unknownApproval.status).toBe(404);
    expect(await store.readAll()).toHaveLength(before.length);
  });
});

describe('the route table', () => {
  it('matches paths with decoded parameters and tells methods apart', () => {
    expect(matchRoute('GET', '/api/v1/runs/a%3Ab')).toMatchObject({ id: 'getRun', params: { runId: 'a:b' } });
    expect(matchRoute('POST', '/api/v1/runs/r1/cancel')).toMatchObject({ id: 'cancelRun', params: { runId: 'r1' } });
    expect(matchRoute('GET', '/api/v1/runs/r1/cancel')).toBeNull();
    expect(matchRoute('GET', '/api/v1/runs/%E0%A4%A')).toBeNull();
  });

  it('generates an OpenAPI 3.1 document with every route, its schemas and the error shape', () => {
    const doc = apiV1.apiV1OpenApi('0.0.0') as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    for (const route of Object.values(apiV1.apiV1Routes)) {
      const operation = doc.paths[route.path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[route.method.toLowerCase()];
      expect({ route: route.path, responses: Object.keys(operation?.responses ?? {}) }).toEqual({
        route: route.path,
        responses: expect.arrayContaining([String(route.status), '400', '401', '403', '404']),
      });
    }
  });
});
