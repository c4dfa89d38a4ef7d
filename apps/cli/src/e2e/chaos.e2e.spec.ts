import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceName, StagecraftEvent, streams } from '@stagecraft/contracts';
import { subscribeRunEvents } from '@stagecraft/messaging';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import {
  SERVICE_APPS,
  exitOf,
  freePort,
  macroReasoning,
  microReasoning,
  prng,
  spawnApp,
  toolResultsIn,
  waitForHttp,
} from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * Chaos for the distributed deployment: each service is killed with SIGKILL at a random point of a
 * run and started again; the nats-server is restarted mid-run. Every run must end (`RunCompleted`, or
 * `RunFailed` with a cause), no tool call may take effect twice, and the stored log must be whole.
 * `STAGECRAFT_CHAOS_ROUNDS` repeats the kills (a soak run); `STAGECRAFT_CHAOS_SEED` picks the points.
 */

const ROUNDS = Number(process.env['STAGECRAFT_CHAOS_ROUNDS'] ?? 1);
const SEED = Number(process.env['STAGECRAFT_CHAOS_SEED'] ?? 20261122);
/** A run's whole length in this script is about this long; kills land anywhere inside it. */
const RUN_SPAN_MS = 2500;
const COMMAND_MS = 800;
const END_WITHIN_MS = 90_000;

const QA_REPORT = JSON.stringify({ verdict: 'pass', summary: 'Counted.', findings: [] });
const appendAfter = (file: string, ms: number) => `setTimeout(() => require('fs').appendFileSync('${file}', 'x'), ${ms})`;

/** Warmup, one slow command that appends to count.txt, a file write, done; each reply a little slow. */
function script(request: RecordedRequest): ScriptedReply {
  const delayMs = 150;
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will count, then write notes.`, delayMs };
    case 'act':
    case 'tool_followup': {
      const done = toolResultsIn(request.body);
      if (done === 0)
        return {
          content: microReasoning('count'),
          toolCalls: [
            { id: 'call_count', name: 'run_command', arguments: { command: 'node', args: ['-e', appendAfter('count.txt', COMMAND_MS)] } },
          ],
          delayMs,
        };
      if (done === 1)
        return {
          content: microReasoning('notes'),
          toolCalls: [{ id: 'call_notes', name: 'write_file', arguments: { path: 'NOTES.md', content: 'Counted.\n' } }],
          delayMs,
        };
      return { content: `${microReasoning('finish', 'DONE')}\nCounted and wrote NOTES.md.`, delayMs };
    }
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nDone.`, delayMs };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_REPORT}`, delayMs };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

interface Outcome {
  runId: string;
  end: StagecraftEvent | null;
  stored: StagecraftEvent[];
  counted: string;
}

describe('chaos: kill -9 each service mid-run, restart nats-server', () => {
  const prefix = 'chaos';
  const random = prng(SEED);
  const tally = { kills: 0, runs: 0, completed: 0, failedWithCause: 0, hung: 0, twice: 0 };
  let server: ScriptedModelServer;
  let dir: string;
  let system: DistributedSystem;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-chaos-'));
    system = await startDistributedSystem({
      prefix,
      storePath: join(dir, 'events.db'),
      env: { STAGECRAFT_PROJECT_ROOTS: dir, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' },
      timeoutMs: 30_000,
    });
  }, 60_000);

  afterAll(async () => {
    console.log(
      `chaos: ${tally.kills} kills, ${tally.runs} runs, ${tally.completed} completed, ${tally.failedWithCause} failed with a cause, ` +
        `${tally.hung} hung, ${tally.twice} tool effects twice (seed ${SEED})`,
    );
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a run, does `disrupt` while it goes, and waits for its end on the live feed (or gives up: a hang). */
  async function runThrough(disrupt: (runId: string) => Promise<void>): Promise<Outcome> {
    const runId = `chaos-${randomUUID().slice(0, 8)}`;
    const project = join(dir, runId);
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Sample\n');
    let resolveEnd: (e: StagecraftEvent) => void = () => undefined;
    const ended = new Promise<StagecraftEvent>((resolve) => (resolveEnd = resolve));
    const subscription = subscribeRunEvents(system.bus, prefix, runId, (e) => {
      if (e.type === 'RunCompleted' || e.type === 'RunFailed') resolveEnd(e);
    });
    await system.bus.flush();
    await system.requester.request('conversation.send', {
      runId,
      message: 'Count, then write notes',
      userMode: 'agent',
      reasoningEnabled: true,
      projectRoot: project,
    });
    await disrupt(runId);
    // The live feed may have been cut while a process was down: the log is the authority on the end.
    const polling = new AbortController();
    const end = await Promise.race([ended, pollForEnd(runId, polling.signal), sleep(END_WITHIN_MS, null, { ref: false })]);
    polling.abort();
    subscription.unsubscribe();
    const stored = (await system.store.readStream(streams.run(runId))) as unknown as StagecraftEvent[];
    const countFile = join(project, 'count.txt');
    await sleep(COMMAND_MS + 200); // a command that was not stopped would append after this
    const counted = existsSync(countFile) ? readFileSync(countFile, 'utf8') : '';
    tally.runs += 1;
    if (!end) tally.hung += 1;
    else if (end.type === 'RunCompleted') tally.completed += 1;
    else if (end.type === 'RunFailed' && end.data.reason) tally.failedWithCause += 1;
    if (counted.length > 1) tally.twice += 1;
    return { runId, end, stored, counted };
  }

  /** Stops with `signal`, so no poller outlives its run (it would read a closed store after the suite). */
  async function pollForEnd(runId: string, signal: AbortSignal): Promise<StagecraftEvent | null> {
    while (!signal.aborted) {
      const last = (await system.store.readStream(streams.run(runId), { direction: 'backwards', maxCount: 1 }))[0] as unknown as
        StagecraftEvent | undefined;
      if (last && (last.type === 'RunCompleted' || last.type === 'RunFailed')) return last;
      await sleep(100);
    }
    return null;
  }

  async function killAndRestart(name: string): Promise<void> {
    const index = system.services.findIndex((s) => s.name === name);
    const victim = system.services[index];
    victim.child.kill('SIGKILL');
    await exitOf(victim.child);
    tally.kills += 1;
    const port = await freePort();
    system.services[index] = spawnApp(name, system.envFor(name as ServiceName, port));
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 30_000);
  }

  /** The log is whole: one terminal event, last; every tool call the run asked for settled once, in its run and in its own stream. */
  async function expectWholeLog({ stored, end, counted, runId }: Outcome): Promise<void> {
    const diagnostics = end?.type === 'RunFailed' ? '' : system.services.map((s) => `--- ${s.name}\n${s.output().slice(-2000)}`).join('\n');
    expect({ runId, ended: end !== null, diagnostics: end ? '' : diagnostics }).toEqual({ runId, ended: true, diagnostics: '' });
    if (end?.type === 'RunFailed') expect(end.data.reason.length).toBeGreaterThan(0);
    const terminal = stored.filter((e) => e.type === 'RunCompleted' || e.type === 'RunFailed');
    expect(terminal).toHaveLength(1);
    expect(stored.at(-1)?.type).toBe(terminal[0].type);
    expect(counted.length).toBeLessThanOrEqual(1);
    for (const call of stored.flatMap((e) => (e.type === 'ToolCallRequested' ? [e.data.callId] : []))) {
      const settled = stored.filter((e) => (e.type === 'ToolCallCompleted' || e.type === 'ToolCallRejected') && e.data.callId === call);
      expect({ call, settledInRun: settled.length <= 1 }).toEqual({ call, settledInRun: true });
      const own = (await system.store.readStream(streams.toolCall(call))).filter((e) => e.type === 'ToolExecutionFinished');
      expect({ call, completions: own.length <= 1 }).toEqual({ call, completions: true });
    }
  }

  for (let round = 1; round <= ROUNDS; round++) {
    for (const name of SERVICE_APPS) {
      it(`round ${round}: ${name} killed at a random point of a run ends the run`, async () => {
        const at = Math.floor(random() * RUN_SPAN_MS);
        const outcome = await runThrough(async () => {
          await sleep(at);
          await killAndRestart(name);
        });
        await expectWholeLog(outcome);
      }, 150_000);
    }
  }

  it('tool-execution killed during a command: the call is recorded as interrupted, never run again, and the run goes on', async () => {
    const outcome = await runThrough(async (runId) => {
      for (;;) {
        const run = (await system.store.readStream(streams.run(runId))) as unknown as StagecraftEvent[];
        if (run.some((e) => e.type === 'ToolCallRequested' && e.data.tool === 'run_command')) break;
        await sleep(20);
      }
      await sleep(COMMAND_MS / 3);
      await killAndRestart('tool-execution');
    });
    await expectWholeLog(outcome);
    const completed = outcome.stored.find((e) => e.type === 'ToolCallCompleted' && e.data.tool === 'run_command');
    expect(completed?.type === 'ToolCallCompleted' && completed.data.output).toContain('tool_error: INTERRUPTED');
    // The sandbox died with its service: the command never appended.
    expect(outcome.counted).toBe('');
    expect(outcome.end?.type).toBe('RunCompleted');
  }, 150_000);

  it('a nats-server restart mid-run: services reconnect and the run ends', async () => {
    const outcome = await runThrough(async () => {
      await sleep(Math.floor(random() * RUN_SPAN_MS));
      await system.nats.stop();
      tally.kills += 1;
      await sleep(300);
      await system.restartNats();
    });
    await expectWholeLog(outcome);
  }, 150_000);
});
