import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { canonicalJson, streams } from '@stagecraft/contracts';
import type { EventData, EventType } from '@stagecraft/contracts';
import { EventStore, NewEvent, RecordedEvent, createSqliteEventStore, rebuildProjection } from '@stagecraft/event-store';
import { READ_MODELS, ReadModel } from '@stagecraft/read-models';
import { ViewHost } from './view-host';

const RUNS = 3_600;
const CONVERSATIONS = 150;
const at = (run: number, step: number) => new Date(Date.UTC(2026, 10, 1) + run * 60_000 + step * 1_000).toISOString();
const usage = (n: number) => ({ promptTokens: 100 + n, completionTokens: 10 + (n % 7), totalTokens: 110 + n + (n % 7) });
const outcome = (next: string) => ({
  plan_delta: 'none',
  next_action: next,
  known_risks: 'none',
  delivery_state: 'NEEDS_WORK' as const,
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
  toolLoop: stage === 'act',
});
const message = (messageId: string, role: 'user' | 'assistant', content: string): EventData<'MessageAppended'> => ({
  messageId,
  role,
  content,
  instructions: [],
  intermediate: false,
  kind: role === 'user' ? 'user_input' : 'assistant',
});

/** One run of about 27 events, and the turn it leaves on its conversation; every fourth run fails. */
function runEvents(n: number): { runId: string; conversationId: string; run: NewEvent[]; turn: NewEvent[] } {
  const runId = `run-${n}`;
  const conversationId = `conv-${n % CONVERSATIONS}`;
  let step = 0;
  const event = <T extends EventType>(type: T, data: EventData<T>, contextId?: string): NewEvent => ({
    id: randomUUID(),
    type,
    data,
    metadata: { runId, conversationId, correlationId: runId, occurredAt: at(n, (step += 1)), ...(contextId ? { contextId } : {}) },
  });
  const context = (seq: number) => `${runId}/main/00${seq}/2026-11-01T00:00:00Z`;
  const ask = (i: number, model: string) => [
    event('ModelRequested', {
      requestId: `${runId}.m${i}`,
      stage: 'act',
      model,
      toolNames: [],
      messageCount: 2 + i,
      tokenEstimate: 100,
      promptHash: 'a'.repeat(64),
      messageHashes: [],
      newBodies: {},
    }),
    event('ModelResponded', {
      requestId: `${runId}.m${i}`,
      content: 'ok',
      toolCalls: [],
      usage: usage(n + i),
      latencyMs: 3,
      finishReason: 'stop',
    }),
    event('ReasoningRecorded', { requestId: `${runId}.m${i}`, format: 'micro', text: '…', outcome: outcome(`step ${i} of ${runId}`) }),
  ];
  const run = [
    event('RunStarted', { runId, conversationId, userMode: 'agent', reasoningEnabled: true, userInput: `task ${n}`, projectRoot: '/p' }),
    event('StageEntered', { stage: 'warmup', iteration: 0, policy: policy('warmup'), contextId: context(1) }),
    ...ask(0, 'gpt-a'),
    event('StageEntered', { stage: 'act', iteration: 0, policy: policy('act'), contextId: context(2) }),
    ...[1, 2, 3].flatMap((i) => [
      ...ask(i, i % 2 ? 'gpt-b' : 'gpt-a'),
      event('ToolCallRequested', { callId: `${runId}.c${i}`, tool: 'read_file', arguments: { path: 'README.md' }, stage: 'act' }),
      event('ToolCallCompleted', {
        callId: `${runId}.c${i}`,
        tool: 'read_file',
        ok: true,
        output: 'text',
        truncated: false,
        durationMs: 1,
      }),
      event('MessageAppended', { ...message(`${runId}.t${i}`, 'assistant', 'read it'), kind: 'tool_result', role: 'tool' }),
    ]),
    event('DeliveryChecked', { state: n % 3 ? 'DONE' : 'NEEDS_WORK', iteration: 0 }),
    event('QAReportIssued', {
      report: { verdict: n % 2 ? 'pass' : 'concerns', summary: 'checked', findings: [] },
      modelCalls: [{ requestId: `${runId}.qa`, latencyMs: 2, usage: usage(n), finishReason: 'stop' }],
    }),
    n % 4 === 3
      ? event('RunFailed', { code: 'UNAVAILABLE', reason: 'model down' })
      : event('RunCompleted', { deliveryState: n % 3 ? 'DONE' : 'NEEDS_WORK', answer: `answer ${n}` }),
  ];
  const turn = [
    event('MessageAppended', message(`${runId}.user`, 'user', `task ${n}`)),
    event('MessageAppended', message(`${runId}.answer`, 'assistant', `answer ${n}`)),
  ];
  return { runId, conversationId, run, turn };
}

/** Each saved checkpoint's position, read without loading the views themselves. */
function savedPositions(path: string): Map<string, bigint> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db.prepare('SELECT name, position FROM checkpoints').all() as { name: string; position: number }[];
    return new Map(rows.map((r) => [r.name, BigInt(r.position)]));
  } finally {
    db.close();
  }
}

/** The model with a count of the events handed to `evolve`. */
function counted<S>(model: ReadModel<S>): { model: ReadModel<S>; folded: () => number } {
  let folded = 0;
  return { model: { ...model, evolve: (state, event) => ((folded += 1), model.evolve(state, event)) }, folded: () => folded };
}

describe('read models over a log of 100,000 events', () => {
  let dir: string;
  let path: string;
  let store: EventStore;
  let log: RecordedEvent[];
  let head: bigint;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-restart-'));
    path = join(dir, 'events.db');
    store = createSqliteEventStore({ path });
    for (let n = 0; n < RUNS; n += 1) {
      const { runId, conversationId, run, turn } = runEvents(n);
      await store.appendToStream(streams.run(runId), run);
      await store.appendToStream(streams.conversation(conversationId), turn);
    }
    log = await store.readAll();
    head = log[log.length - 1].position;
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // How fast a rebuild is belongs to `npm run bench:replay`; here only that folding the log in memory
  // and rebuilding from the store (which reads only the handled types) give the same view.
  it('each fold of the whole log gives what a rebuild from the store gives', async () => {
    for (const model of READ_MODELS) {
      const handles = new Set(model.handles);
      const view = log.reduce((state, event) => (handles.has(event.type) ? model.evolve(state, event) : state), model.initialState());
      expect({ model: model.name, same: canonicalJson(view) === canonicalJson(await rebuildProjection(store, model)) }).toEqual({
        model: model.name,
        same: true,
      });
    }
  }, 120_000);

  it('killed while catching up, restart from their checkpoints, fold only what came after, and equal a rebuild from zero', async () => {
    expect(log.length).toBeGreaterThanOrEqual(100_000);
    const child = spawn(process.execPath, [join(__dirname, 'catch-up.child.cjs'), path, '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    let killedAt: Map<string, bigint>;
    try {
      // Killed as soon as one view has saved a checkpoint past a tenth of the log and short of its head.
      for (;;) {
        if (child.exitCode !== null) throw new Error(`the child exited with ${child.exitCode} before it was killed:\n${output}`);
        const saved = savedPositions(path);
        if ([...saved.values()].some((p) => p >= head / 10n && p < head)) break;
        await sleep(5);
      }
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      killedAt = savedPositions(path);
    } finally {
      child.kill('SIGKILL');
    }
    expect([...killedAt.values()].some((p) => p >= head / 10n && p < head)).toBe(true);

    const models = READ_MODELS.map((model) => counted(model));
    const restarted = await ViewHost.start(
      store,
      models.map((m) => m.model),
      { checkpointGapMs: 0 },
    );
    try {
      for (const [i, { model, folded }] of models.entries()) {
        const { position, state } = await restarted.read(model, head, 60_000);
        expect(position).toBe(head);
        const rebuilt = await rebuildProjection(store, READ_MODELS[i]);
        expect(canonicalJson(state) === canonicalJson(rebuilt)).toBe(true);
        const from = killedAt.get(model.name) ?? 0n;
        const handles = new Set(model.handles);
        expect({ model: model.name, folded: folded() }).toEqual({
          model: model.name,
          folded: log.filter((e) => e.position > from && handles.has(e.type)).length,
        });
      }
    } finally {
      await restarted.stop();
    }
    for (const model of READ_MODELS) {
      const saved = await store.checkpoints.load(model.name);
      expect(saved?.position).toBe(head);
      expect(canonicalJson(saved?.state) === canonicalJson(await rebuildProjection(store, model))).toBe(true);
    }
  }, 180_000);
});
