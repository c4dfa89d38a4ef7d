import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { streams } from '@stagecraft/contracts';
import type { EventData, EventMetadata, EventType, ReasoningOutcome, RequestOf, RequestSubject } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { Host, startHost } from '@stagecraft/service-shell';
import { NatsServerHandle, startNatsServer } from '@stagecraft/testing';
import { memoryService } from './index';

// Every project is in reach: these views are about folding, not scoping (ownership.int.spec.ts is).
const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const, projectRoots: ['/'] };
/** The service waits up to about this long for a position (a little less, so its answer arrives first). */
const REQUEST_TIMEOUT_MS = 800;
const PRICES = { 'gpt-a': { promptPerMTok: 2, completionPerMTok: 8 }, qa: { promptPerMTok: 1, completionPerMTok: 1 } };
const env = {
  STAGECRAFT_PRICES: JSON.stringify(PRICES),
  STAGECRAFT_STUCK_AFTER_MS: String(10 * 60_000),
  STAGECRAFT_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
};
const TRANSPORTS = ['inproc', 'nats'] as const;

const LONG_AGO = '2026-01-01T00:00:00.000Z';
const outcome = (next: string): ReasoningOutcome => ({
  plan_delta: 'none',
  next_action: next,
  known_risks: 'none',
  delivery_state: 'NEEDS_WORK',
  notes: [],
});
const policy = (stage: 'warmup' | 'act') => ({
  userMode: 'agent' as const,
  reasoningEnabled: true,
  stage,
  delegation: { depth: 0, chain: [] },
  tools: [],
  prompts: [],
  reasoning: { rule: 'micro' as const, required: true },
  toolLoop: false,
});
const usage = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});
const message = (messageId: string, role: 'user' | 'assistant', content: string): EventData<'MessageAppended'> => ({
  messageId,
  role,
  content,
  instructions: [],
  intermediate: false,
  kind: role === 'user' ? 'user_input' : 'assistant',
});

let nats: NatsServerHandle;
let dir: string;
beforeAll(async () => {
  nats = await startNatsServer();
  dir = mkdtempSync(join(tmpdir(), 'stagecraft-views-'));
});
afterAll(async () => {
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(TRANSPORTS)('the memory service’s read models over %s, on a SQLite file', (transport) => {
  let host: Host;
  let store: EventStore;

  beforeAll(async () => {
    const storeUrl = `sqlite:${join(dir, `${transport}.db`)}`;
    host = await startHost({ definitions: [memoryService], transport, natsUrl: nats.url, store: storeUrl, config, env });
    store = host.ports.store as EventStore;
  });
  afterAll(() => host?.close());

  const request = <S extends RequestSubject>(subject: S, data: RequestOf<S>) => host.ports.requester.request(subject, data);
  /** Appends as the conversation service would; returns the position of the last event as a request carries it. */
  async function append(
    stream: string,
    events: { type: EventType; data: unknown; at?: string }[],
    metadata: Partial<EventMetadata> = {},
  ): Promise<string> {
    const stored = events.map(({ type, data, at }) => ({
      id: randomUUID(),
      type,
      data,
      metadata: { correlationId: 'k', occurredAt: at ?? new Date().toISOString(), ...metadata },
    }));
    return String((await store.appendToStream(stream, stored)).position);
  }
  const run = (runId: string, conversationId: string) => (events: { type: EventType; data: unknown; at?: string }[]) =>
    append(streams.run(runId), events, { runId, conversationId });
  const started = (runId: string, conversationId: string, at?: string) => ({
    type: 'RunStarted' as const,
    data: { runId, conversationId, userMode: 'agent', reasoningEnabled: true, userInput: 'fix it', projectRoot: '/p' },
    at,
  });

  describe('memory.reasoning-outcome.get', () => {
    const WARMUP = 'ro-1/main/001/2026-11-01T10:00:00Z';
    const ACT = 'ro-1/main/002/2026-11-01T10:00:05Z';

    it("answers a run's latest outcome with its history, and a conversation's latest from whichever run, at the caller's own write", async () => {
      await run(
        'ro-2',
        'conv-ro',
      )([
        started('ro-2', 'conv-ro'),
        { type: 'ReasoningRecorded', data: { requestId: 'ro-2.m1', format: 'micro', text: '…', outcome: outcome('older run') } },
      ]);
      const first = await run(
        'ro-1',
        'conv-ro',
      )([
        started('ro-1', 'conv-ro'),
        { type: 'StageEntered', data: { stage: 'warmup', iteration: 0, policy: policy('warmup'), contextId: WARMUP } },
        { type: 'ReasoningRecorded', data: { requestId: 'ro-1.m1', format: 'macro', text: '…', outcome: outcome('read the README') } },
      ]);
      const last = await run(
        'ro-1',
        'conv-ro',
      )([
        { type: 'StageEntered', data: { stage: 'act', iteration: 0, policy: policy('act'), contextId: ACT } },
        { type: 'ReasoningRecorded', data: { requestId: 'ro-1.m2', format: 'micro', text: '…', outcome: outcome('answer') } },
      ]);

      const byRun = await request('memory.reasoning-outcome.get', { runId: 'ro-1', minPosition: last });
      expect(byRun).toEqual({
        runId: 'ro-1',
        outcome: outcome('answer'),
        history: [
          { requestId: 'ro-1.m1', stage: 'warmup', contextId: WARMUP, position: first, outcome: outcome('read the README') },
          { requestId: 'ro-1.m2', stage: 'act', contextId: ACT, position: last, outcome: outcome('answer') },
        ],
        position: expect.any(String),
      });
      expect(BigInt(byRun.position)).toBeGreaterThanOrEqual(BigInt(last));
      expect(await request('memory.reasoning-outcome.get', { conversationId: 'conv-ro', minPosition: last })).toMatchObject({
        runId: 'ro-1',
        outcome: outcome('answer'),
        history: [{ requestId: 'ro-1.m1' }, { requestId: 'ro-1.m2' }],
      });
    });

    it('answers null for a run or conversation with no outcome', async () => {
      const at = await run('ro-none', 'conv-none')([started('ro-none', 'conv-none')]);
      for (const query of [{ runId: 'ro-none' }, { runId: 'ro-never' }, { conversationId: 'conv-none' }]) {
        expect(await request('memory.reasoning-outcome.get', { ...query, minPosition: at })).toEqual({
          runId: null,
          outcome: null,
          history: [],
          position: expect.stringMatching(/^\d+$/),
        });
      }
    });
  });

  describe('memory.history.get', () => {
    it("answers a conversation's turns in order, at the caller's own write", async () => {
      // The conversation's first run names its project, as the conversation service records it.
      await run('h-run', 'conv-h')([started('h-run', 'conv-h')]);
      const at = await append(streams.conversation('conv-h'), [
        { type: 'MessageAppended', data: message('h.user', 'user', 'What is this?') },
        { type: 'MessageAppended', data: message('h.answer', 'assistant', 'A tiny project.') },
      ]);
      const reply = await request('memory.history.get', { conversationId: 'conv-h', minPosition: at });
      expect(reply).toEqual({
        conversationId: 'conv-h',
        summary: null,
        messages: [
          { role: 'user', content: 'What is this?' },
          { role: 'assistant', content: 'A tiny project.' },
        ],
        position: expect.any(String),
      });
      expect(BigInt(reply.position)).toBeGreaterThanOrEqual(BigInt(at));
      expect(await request('memory.history.get', { conversationId: 'conv-unknown' })).toMatchObject({ summary: null, messages: [] });
    });
  });

  describe('memory.history.get after a compaction', () => {
    it('answers the summary as the model reads it, and the turns after it', async () => {
      const section = (items: string[]) => ({ items, sources: [{ stream: 'conversation-conv-k', from: 0, to: 1 }] });
      // The conversation's first run names its project, as the conversation service records it.
      await run('k-run', 'conv-k')([started('k-run', 'conv-k')]);
      const at = await append(streams.conversation('conv-k'), [
        { type: 'MessageAppended', data: message('k.1', 'user', 'Rename the module') },
        { type: 'MessageAppended', data: message('k.2', 'assistant', 'Renamed it.') },
        { type: 'MessageAppended', data: message('k.3', 'user', 'Now the tests') },
        {
          type: 'HistoryCompacted',
          data: {
            compactionId: 'k-c1',
            method: 'extractive',
            trigger: { messageCount: 3, tokenEstimate: 900, maxMessages: 2, maxTokens: 800 },
            replaced: 2,
            covers: [{ stream: 'conversation-conv-k', from: 0, to: 1 }],
            summary: {
              goals: section(['Rename the module']),
              decisions: section([]),
              currentPlan: section(['Renamed it.']),
              openIssues: section([]),
              toolOutputs: section([]),
            },
            tokensBefore: 900,
            tokensAfter: 300,
          },
        },
      ]);
      const reply = await request('memory.history.get', { conversationId: 'conv-k', minPosition: at });
      expect(reply.messages).toEqual([{ role: 'user', content: 'Now the tests' }]);
      expect(reply.summary).toContain('Rename the module');
      expect(reply.summary).toContain('Renamed it.');
    });
  });

  describe('runs.list and runs.get', () => {
    let lastWrite: string;

    beforeAll(async () => {
      // rs-done: completed long ago, priced; rs-idle: running, silent since long ago; rs-busy: running now (another conversation).
      await run(
        'rs-done',
        'conv-rs',
      )([
        started('rs-done', 'conv-rs', LONG_AGO),
        {
          type: 'ModelRequested',
          data: {
            requestId: 'rs-done.m1',
            stage: 'act',
            model: 'gpt-a',
            toolNames: [],
            messageCount: 1,
            tokenEstimate: 1,
            promptHash: 'a'.repeat(64),
            messageHashes: [],
            newBodies: {},
          },
          at: LONG_AGO,
        },
        {
          type: 'ModelResponded',
          data: {
            requestId: 'rs-done.m1',
            content: 'ok',
            toolCalls: [],
            usage: usage(1_000_000, 250_000),
            latencyMs: 1,
            finishReason: 'stop',
          },
          at: LONG_AGO,
        },
        {
          type: 'QAReportIssued',
          data: {
            report: { verdict: 'pass', summary: 'fine', findings: [] },
            modelCalls: [{ requestId: 'qa.1', latencyMs: 1, usage: usage(500_000, 500_000), finishReason: 'stop' }],
          },
          at: LONG_AGO,
        },
        { type: 'RunCompleted', data: { deliveryState: 'DONE', answer: 'done' }, at: LONG_AGO },
      ]);
      await run('rs-idle', 'conv-rs')([started('rs-idle', 'conv-rs', LONG_AGO)]);
      lastWrite = await run('rs-busy', 'conv-other')([started('rs-busy', 'conv-other')]);
    });

    it('gets one run with its cost at the configured prices, and null for an unknown run', async () => {
      const { run: done, position } = await request('runs.get', { runId: 'rs-done', minPosition: lastWrite });
      expect(BigInt(position)).toBeGreaterThanOrEqual(BigInt(lastWrite));
      expect(done).toEqual({
        runId: 'rs-done',
        conversationId: 'conv-rs',
        userMode: 'agent',
        reasoningEnabled: true,
        status: 'completed',
        stage: null,
        startedAt: LONG_AGO,
        updatedAt: LONG_AGO,
        endedAt: LONG_AGO,
        modelCalls: 2,
        tokens: { 'gpt-a': usage(1_000_000, 250_000), qa: usage(500_000, 500_000) },
        deliveryState: 'DONE',
        qaVerdict: 'pass',
        failure: null,
        cost: { amount: 2 + 2 + 0.5 + 0.5, currency: 'USD', priced: true },
        stuck: false,
        resumable: false,
      });
      expect(await request('runs.get', { runId: 'rs-unknown' })).toEqual({ run: null, position: expect.any(String) });
    });

    it('lists newest first, filtered by status, conversation and stuck, up to the limit', async () => {
      const ids = async (query: RequestOf<'runs.list'>) =>
        (await request('runs.list', { minPosition: lastWrite, ...query })).runs.map((r) => r.runId).filter((id) => id.startsWith('rs-'));
      expect(await ids({})).toEqual(['rs-busy', 'rs-idle', 'rs-done']);
      expect(await ids({ status: 'running' })).toEqual(['rs-busy', 'rs-idle']);
      expect(await ids({ conversationId: 'conv-rs' })).toEqual(['rs-idle', 'rs-done']);
      expect(await ids({ stuck: true })).toEqual(['rs-idle']);
      expect(await ids({ stuck: false })).toEqual(['rs-busy', 'rs-done']);
      expect((await request('runs.list', { conversationId: 'conv-rs', limit: 1 })).runs.map((r) => r.runId)).toEqual(['rs-idle']);
      expect((await request('runs.list', { conversationId: 'conv-rs', stuck: true })).runs[0]).toMatchObject({
        stuck: true,
        status: 'running',
      });
    });
  });

  describe('minPosition', () => {
    it('waits for a write that has not happened yet, and answers once the view has folded it', async () => {
      const head = await run('wait-0', 'conv-wait')([started('wait-0', 'conv-wait')]);
      const expected = String(BigInt(head) + 2n);
      let settled = false;
      const waiting = request('runs.list', { conversationId: 'conv-wait', minPosition: expected }).finally(() => (settled = true));
      await sleep(150);
      expect(settled).toBe(false);
      await run(
        'wait-1',
        'conv-wait',
      )([started('wait-1', 'conv-wait'), { type: 'RunFailed', data: { code: 'UNAVAILABLE', reason: 'model down' } }]);
      const reply = await waiting;
      expect(BigInt(reply.position)).toBeGreaterThanOrEqual(BigInt(expected));
      expect(reply.runs.map((r) => [r.runId, r.status, r.failure?.reason ?? null])).toEqual([
        ['wait-1', 'failed', 'model down'],
        ['wait-0', 'running', null],
      ]);
    });

    it('answers TIMEOUT as a structured error when the position does not come within the request timeout, and writes nothing', async () => {
      const before = (await store.readAll()).length;
      const asked = Date.now();
      await expect(request('runs.get', { runId: 'rs-done', minPosition: '900000000000' })).rejects.toMatchObject({
        code: 'TIMEOUT',
        message: expect.stringContaining('900000000000'),
        issues: [],
      });
      expect(Date.now() - asked).toBeLessThan(REQUEST_TIMEOUT_MS + 500);
      expect((await store.readAll()).length).toBe(before);
    });
  });

  describe('bad requests', () => {
    const bad: [RequestSubject, unknown, (string | number)[]][] = [
      ['memory.reasoning-outcome.get', {}, []],
      ['memory.reasoning-outcome.get', { runId: 'r', conversationId: 'c' }, []],
      ['memory.reasoning-outcome.get', { runId: 'r', minPosition: '-1' }, ['minPosition']],
      ['memory.history.get', { conversationId: 'c', minPosition: 12 }, ['minPosition']],
      ['runs.list', { limit: 0 }, ['limit']],
      ['runs.list', { limit: 501 }, ['limit']],
      ['runs.list', { status: 'stuck' }, ['status']],
      ['runs.list', { stuck: 'yes' }, ['stuck']],
      ['runs.list', { conversation: 'c1' }, []],
      ['runs.get', { runId: 'not an id!' }, ['runId']],
      ['runs.get', { runId: 'r', minPosition: '1e9' }, ['minPosition']],
    ];

    it.each(bad)('%s %j is refused with a structured VALIDATION error naming %j, and nothing is written', async (subject, body, path) => {
      const before = (await store.readAll()).length;
      await expect(host.ports.requester.request(subject, body as never)).rejects.toMatchObject({
        code: 'VALIDATION',
        message: `invalid ${subject} request`,
        issues: [expect.objectContaining({ path })],
      });
      expect((await store.readAll()).length).toBe(before);
    });
  });
});

describe('the memory service’s configuration', () => {
  it.each([
    [{ STAGECRAFT_PRICES: '{"gpt-a": {"promptPerMTok": "two"}}' }, /STAGECRAFT_PRICES\.gpt-a\.promptPerMTok/],
    [{ STAGECRAFT_PRICES: '/nonexistent/prices.json' }, /STAGECRAFT_PRICES: cannot read the price file \/nonexistent\/prices\.json/],
    [{ STAGECRAFT_STUCK_AFTER_MS: 'soon' }, /STAGECRAFT_STUCK_AFTER_MS/],
  ])('stops start-up when %j is bad, naming it', async (badEnv, named) => {
    const store = `sqlite:${join(dir, `config-${randomUUID()}.db`)}`;
    await expect(startHost({ definitions: [memoryService], transport: 'inproc', store, config, env: badEnv })).rejects.toThrow(named);
  });
});
