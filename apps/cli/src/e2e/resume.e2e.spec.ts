import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StagecraftEvent, streams } from '@stagecraft/contracts';
import { EventStore } from '@stagecraft/event-store';
import { MessageBus, Requester, RunFeedEvent, subscribeRunEvents } from '@stagecraft/messaging';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import {
  ServiceProcess,
  exitOf,
  freePort,
  macroReasoning,
  microReasoning,
  spawnApp,
  toolResultsIn,
  waitForHttp,
} from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * Kills the conversation process in the middle of a run, starts a new one on the same log, and
 * checks that the run finishes from where it stopped without running any tool twice.
 */

const appendX = (file: string, afterMs = 0) => `setTimeout(() => require('fs').appendFileSync('${file}', 'x'), ${afterMs})`;
const QA_REPORT = JSON.stringify({ verdict: 'pass', summary: 'Counted once.', findings: [] });
/** Long enough to kill the process and start a new one before the reply would have arrived. */
const SLOW_REPLY_MS = 4000;
/** The command outlives the killed process, so the new one finds the call still running. */
const SLOW_COMMAND_MS = 1500;

type Script = (request: RecordedRequest, attempt: number) => ScriptedReply;

/** Runs a command, writes NOTES.md, finishes; `actStep` decides the acting replies. */
const agent =
  (actStep: (done: number, attempt: number) => ScriptedReply): Script =>
  (request, attempt) => {
    switch (request.stage) {
      case 'warmup':
        return { content: `${macroReasoning()}\nI will count, then write notes.` };
      case 'act':
      case 'tool_followup':
        return actStep(toolResultsIn(request.body), attempt);
      case 'delivery_check':
        return { content: `${microReasoning('hand over', 'DONE')}\nDone.` };
      case 'qa_review':
        return { content: `${microReasoning('report', 'DONE')}\n${QA_REPORT}` };
      default:
        return { status: 500, content: `unexpected stage ${request.stage}` };
    }
  };

const count = (file: string, afterMs = 0): ScriptedReply => ({
  content: microReasoning('count once'),
  toolCalls: [{ id: 'call_count', name: 'run_command', arguments: { command: 'node', args: ['-e', appendX(file, afterMs)] } }],
});
const writeNotes: ScriptedReply = {
  content: microReasoning('write NOTES.md'),
  toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'NOTES.md', content: 'Counted.\n' } }],
};
const finish: ScriptedReply = { content: `${microReasoning('finish', 'DONE')}\nCounted once and wrote NOTES.md.` };

describe('a conversation process killed in the middle of a run', () => {
  const prefix = 'resume';
  let server: ScriptedModelServer;
  let dir: string;
  let storePath: string;
  let services: ServiceProcess[] = [];
  let bus: MessageBus;
  let requester: Requester;
  let store: EventStore;
  const scripts = new Map<string, Script>();
  const attempts = new Map<string, number>();

  let system: DistributedSystem;

  beforeAll(async () => {
    // Each run is answered by its own script; `attempt` counts how often the same step was asked.
    server = await startScriptedModelServer({
      script: (r) => {
        const runId = r.headers['x-stagecraft-run-id'] ?? '';
        const key = `${runId}/${r.stage}/${toolResultsIn(r.body)}`;
        const attempt = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, attempt);
        return scripts.get(runId)?.(r, attempt) ?? { status: 500, content: `no script for run ${runId}` };
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-resume-'));
    storePath = join(dir, 'events.db');
    system = await startDistributedSystem({
      prefix,
      storePath,
      env: { STAGECRAFT_PROJECT_ROOT: dir, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' },
    });
    ({ services, bus, requester, store } = system);
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(10);
    }
  }

  /** Starts a run, waits for `killPoint`, kills the conversation process, starts a new one, and waits for the end. */
  async function runAndKill(script: Script, killPoint: (runId: string) => Promise<unknown>) {
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const project = join(dir, runId);
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Sample\n');
    scripts.set(runId, script);
    const live: RunFeedEvent[] = [];
    const finished = new Promise<RunFeedEvent>((resolve) => {
      subscribeRunEvents(bus, prefix, runId, (e) => {
        live.push(e);
        if (e.type === 'RunCompleted' || e.type === 'RunFailed') resolve(e);
      });
    });
    await bus.flush();
    await requester.request('conversation.send', {
      runId,
      message: 'Count once, then write notes',
      userMode: 'agent',
      reasoningEnabled: true,
      projectRoot: project,
    });

    await killPoint(runId);
    const index = services.findIndex((s) => s.name === 'conversation');
    const killed = services[index];
    killed.child.kill('SIGKILL');
    expect(await exitOf(killed.child)).toBeNull();
    expect(killed.child.signalCode).toBe('SIGKILL');
    const before = (await store.readStream(streams.run(runId))).map((e) => e.type);
    expect(before).not.toContain('RunCompleted');

    const port = await freePort();
    services[index] = spawnApp('conversation', system.envFor('conversation', port));
    await waitForHttp(`http://127.0.0.1:${port}/readyz`);
    const end = await Promise.race([finished, sleep(30_000, null, { ref: false })]);
    const logs = end?.type === 'RunCompleted' ? '' : services.map((s) => `--- ${s.name}\n${s.output()}`).join('\n');
    expect({ end: end?.type, reason: end?.type === 'RunFailed' ? end.data : undefined, logs }).toEqual({
      end: 'RunCompleted',
      reason: undefined,
      logs: '',
    });
    const stored = (await store.readStream(streams.run(runId))) as unknown as StagecraftEvent[];
    return { runId, project, live, stored, before };
  }

  /** No call requested twice on the run; each executed exactly once by the tool service. */
  async function expectEachToolOnce(stored: StagecraftEvent[]): Promise<void> {
    const calls = stored.flatMap((e) => (e.type === 'ToolCallRequested' ? [e.data] : []));
    expect(calls.map((c) => c.tool)).toEqual(['run_command', 'write_file']);
    expect(new Set(calls.map((c) => c.callId)).size).toBe(calls.length);
    for (const call of calls) {
      const record = (await store.readStream(streams.toolCall(call.callId))).map((e) => e.type);
      expect({ callId: call.callId, record }).toEqual({ callId: call.callId, record: ['ToolExecutionStarted', 'ToolExecutionFinished'] });
    }
    expect(stored.filter((e) => e.type === 'ToolCallCompleted').map((e) => e.data.callId)).toEqual(calls.map((c) => c.callId));
  }

  it('killed while the model is answering: asks again under the same request id and completes', async () => {
    const ofRun = (runId: string) => (r: RecordedRequest) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId;
    const { runId, project, live, stored } = await runAndKill(
      agent((done, attempt) => {
        if (done === 0) return count('count.txt');
        if (done === 1) return attempt === 1 ? { ...writeNotes, delayMs: SLOW_REPLY_MS } : writeNotes;
        return finish;
      }),
      (id) =>
        waitFor('the request after the first tool result', () => server.requests.find((r) => ofRun(id)(r) && toolResultsIn(r.body) === 1)),
    );
    expect(stored.at(-1)).toMatchObject({
      type: 'RunCompleted',
      data: { deliveryState: 'DONE', answer: 'Counted once and wrote NOTES.md.' },
    });

    const requested = stored.filter((e) => e.type === 'ModelRequested').map((e) => e.data.requestId);
    expect(new Set(requested).size).toBe(requested.length);
    expect(stored.filter((e) => e.type === 'ModelResponded').map((e) => e.data.requestId)).toEqual(requested);
    const repeats = server.requests.filter((r) => ofRun(runId)(r) && toolResultsIn(r.body) === 1 && r.stage === 'tool_followup');
    expect(repeats).toHaveLength(2);

    await expectEachToolOnce(stored);
    expect(readFileSync(join(project, 'count.txt'), 'utf8')).toBe('x');
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe('Counted.\n');
    // Both processes published what they stored, so a live view sees the run whole.
    expect(live.map((e) => e.type)).toEqual(stored.map((e) => e.type));
  }, 60_000);

  it('killed while a command is running: the new process waits for that call instead of running it again', async () => {
    const { project, stored, before } = await runAndKill(
      agent((done) => [count('slow-count.txt', SLOW_COMMAND_MS), writeNotes][done] ?? finish),
      (runId) =>
        waitFor('the command to start', async () => {
          const run = await store.readStream(streams.run(runId));
          const call = run.find((e) => e.type === 'ToolCallRequested') as { data: { callId: string } } | undefined;
          if (!call) return undefined;
          const record = (await store.readStream(streams.toolCall(call.data.callId))).map((e) => e.type);
          return record.includes('ToolExecutionStarted') ? record : undefined;
        }),
    );
    // Killed with the call open on the run: the restarted driver had to execute it again.
    expect(before.filter((t) => t === 'ToolCallRequested')).toHaveLength(1);
    expect(before).not.toContain('ToolCallCompleted');
    await expectEachToolOnce(stored);
    const output = stored.find((e) => e.type === 'ToolCallCompleted' && e.data.tool === 'run_command');
    expect(output).toMatchObject({ data: { ok: true } });
    expect(readFileSync(join(project, 'slow-count.txt'), 'utf8')).toBe('x');
  }, 60_000);
});
