import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { ModelStreamDelta, RunEvent, streams } from '@stagecraft/contracts';
import { natsConnectOptions } from '@stagecraft/messaging';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT, readWriteAgentScript, runCli } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * The model's text while it streams, on `run.<runId>.stream` (core NATS, not stored), and the model each
 * stage asks (`STAGECRAFT_MODEL_<STAGE>`), across six processes.
 */
describe('streamed model text and per-stage models over NATS', () => {
  const prefix = 'streaming';
  let server: ScriptedModelServer;
  let system: DistributedSystem;
  let dir: string;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script: readWriteAgentScript });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-streaming-'));
    system = await startDistributedSystem({
      prefix,
      storePath: join(dir, 'events.db'),
      env: {
        OPENAI_BASE_URL: server.url,
        OPENAI_API_KEY: 'test',
        STAGECRAFT_MODEL: 'big-model',
        STAGECRAFT_MODEL_WARMUP: 'small-model',
        STAGECRAFT_MODEL_QA_REVIEW: 'review-model',
      },
      timeoutMs: 30_000,
    });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes every piece of each answer in order while the model streams, and records the model each stage asked', async () => {
    const project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const runId = `run-${randomUUID()}`;

    // A plain NATS client, as a UI would subscribe.
    const nc = await connect(natsConnectOptions(system.clients));
    const deltas: ModelStreamDelta[] = [];
    const sub = nc.subscribe(`${prefix}.run.${runId}.stream`, { callback: (_err, msg) => void deltas.push(msg.json<ModelStreamDelta>()) });
    let finished: (event: RunEvent) => void = () => undefined;
    const ended = new Promise<RunEvent>((resolve) => (finished = resolve));
    const feed = system.bus.subscribe(`${prefix}.run.${runId}.events`, (m) => {
      const event = JSON.parse(m.body) as RunEvent;
      if (event.type === 'RunCompleted' || event.type === 'RunFailed') finished(event);
    });
    try {
      await Promise.all([nc.flush(), system.bus.flush()]);
      await system.requester.request('conversation.send', {
        runId,
        message: 'Write notes about this project',
        userMode: 'agent',
        reasoningEnabled: true,
        projectRoot: project,
      });
      expect((await ended).type).toBe('RunCompleted');
      // Everything the server sent this client before the round trip has been delivered.
      await nc.flush();
    } finally {
      feed.unsubscribe();
      sub.unsubscribe();
      await nc.close();
    }

    const events = await system.store.readStream(streams.run(runId));
    const requested = events
      .filter((e) => e.type === 'ModelRequested')
      .map((e) => e.data as { requestId: string; stage: string; model: string });
    const responded = events.filter((e) => e.type === 'ModelResponded').map((e) => e.data as { requestId: string; content: string });
    expect(responded.length).toBeGreaterThanOrEqual(4);
    for (const { requestId, content } of responded) {
      const pieces = deltas.filter((d) => d.requestId === requestId);
      expect(pieces.map((d) => d.seq)).toEqual(pieces.map((_, i) => i));
      expect(pieces.map((d) => d.text).join('')).toBe(content);
      expect(new Set(pieces.map((d) => d.stage))).toEqual(new Set([requested.find((r) => r.requestId === requestId)?.stage]));
    }
    expect(deltas.every((d) => d.runId === runId)).toBe(true);
    // The stream is for live views only: nothing of it is stored.
    expect(events.some((e) => e.type.toLowerCase().includes('stream'))).toBe(false);

    // Each stage asked its own model where one is set, the default elsewhere, and the log says so.
    const modelOf = (stage: string) => [...new Set(requested.filter((r) => r.stage === stage).map((r) => r.model))];
    expect(modelOf('warmup')).toEqual(['small-model']);
    expect(modelOf('act')).toEqual(['big-model']);
    const asked = server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);
    expect([...new Set(asked.filter((r) => r.stage === 'warmup').map((r) => r.body.model))]).toEqual(['small-model']);
    expect([...new Set(asked.filter((r) => r.stage === 'qa_review').map((r) => r.body.model))]).toEqual(['review-model']);
    expect([...new Set(asked.filter((r) => r.stage === 'delivery_check').map((r) => r.body.model))]).toEqual(['big-model']);
    const review = events.find((e) => e.type === 'QAReportIssued')?.data as { modelCalls?: { model?: string }[] };
    expect(review.modelCalls?.map((c) => c.model)).toEqual(['review-model']);
  }, 120_000);
});

describe('a model the endpoint does not know', () => {
  let server: ScriptedModelServer;
  let dir: string;
  beforeAll(async () => {
    server = await startScriptedModelServer({ script: readWriteAgentScript, models: ['known-model'] });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-unknown-model-'));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails the run as CONFIGURATION, naming the model and the base URL and what to check', async () => {
    const project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const env = { NATS_URL: '', OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'no-such-model' };
    const { code, stdout } = await runCli(
      ['chat', 'Write notes', '--root', project, '--mode', 'agent', '--store', `sqlite:${join(dir, 'events.db')}`, '--json'],
      env,
      60_000,
    );
    expect(code).toBe(1);
    const failed = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as RunEvent)
      .find((e) => e.type === 'RunFailed');
    expect(failed?.data).toMatchObject({ code: 'CONFIGURATION' });
    const reason = (failed?.data as { reason: string }).reason;
    expect(reason).toContain('no-such-model');
    expect(reason).toContain(server.url);
    expect(reason).toContain('check STAGECRAFT_MODEL and OPENAI_BASE_URL');
    // Never streamed, and never retried: a missing model does not appear by asking again.
    expect(server.requests.filter((r) => r.path === '/chat/completions')).toHaveLength(1);
  }, 90_000);
});
