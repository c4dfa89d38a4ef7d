import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { RunSummary, StagecraftEvent, runEvents, streams, toolCallEvents } from '@stagecraft/contracts';
import { EventReader, createSqliteEventStore, readEvents } from '@stagecraft/event-store';
import { connectNatsBus, createRequester, natsConnectionOf } from '@stagecraft/messaging';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { QA_PASS_REPORT, REPO_ROOT, eventually, macroReasoning, microReasoning, runCli, toolResultsIn } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * Every run can be stopped, and says why it ended: `runs cancel` over NATS while a command runs, the
 * MCP tool `cancel_run`, and Ctrl-C on `stagecraft chat`. The command's process is killed, its call is
 * recorded as interrupted (never run again), and the run leaves no QA report and no memory.
 */

const BIN = join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs');

/** The command each run starts: a node process that would live 30 s, named by a marker the test finds it by. */
let marker = '';
const longCommand = () => ({ command: 'node', args: ['-e', `setTimeout(() => {}, 30000); // ${marker}`] });

function script(request: RecordedRequest): ScriptedReply {
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will run the long command.` };
    case 'act':
    case 'tool_followup':
      if (toolResultsIn(request.body) === 0)
        return { content: microReasoning('run it'), toolCalls: [{ id: 'call_long', name: 'run_command', arguments: longCommand() }] };
      return { content: `${microReasoning('finish', 'DONE')}\nRan it.` };
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nDone.` };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

/** Processes whose command line holds the marker (a zombie's is empty). */
function processesWith(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

const commandRunning = () => eventually(async () => (processesWith(marker).length > 0 ? true : undefined), 'the command to start');

const runLog = (store: EventReader, runId: string) => readEvents(store, streams.run(runId), runEvents);

/** What the processes said, for a failure's message. */
let diagnose: () => string = () => '';

/** Once the cancelled run has settled: its interrupted call is recorded. */
async function settled(store: EventReader, runId: string) {
  let log: Awaited<ReturnType<typeof runLog>> = [];
  try {
    return await eventually(
      async () => {
        log = await runLog(store, runId);
        return log.some((e) => e.type === 'ToolCallCompleted') ? log : undefined;
      },
      'the interrupted call to be recorded',
      { timeoutMs: 20_000 },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; the run holds ${log.map((e) => e.type).join(', ')}\n${diagnose()}`);
  }
}

/** What every cancelled run must show: who and why, the call interrupted, the process gone, no review, no memory. */
async function expectCancelled(store: EventReader, runId: string, by: string, reason: string): Promise<void> {
  const log = await settled(store, runId);
  const types = log.map((e) => e.type);
  expect(log.find((e) => e.type === 'RunCancelled')).toMatchObject({ data: { by, reason, stage: 'act' } });
  expect(log.find((e) => e.type === 'ToolCallCompleted')).toMatchObject({ data: { tool: 'run_command', ok: false, interrupted: true } });
  // Nothing is decided after the cancellation: no stage, no review, no end other than it.
  expect(types.slice(types.indexOf('RunCancelled') + 1)).toEqual(['ToolCallCompleted']);
  expect(types).not.toContain('QAReportIssued');
  expect(types).not.toContain('RunCompleted');
  expect(processesWith(marker)).toEqual([]);
  const callId = log.find((e) => e.type === 'ToolCallRequested')?.data as { callId: string };
  const call = await readEvents(store, streams.toolCall(callId.callId), toolCallEvents);
  expect(call.map((e) => e.type)).toEqual(['ToolExecutionStarted', 'ToolExecutionFinished']);
  expect(call[1].data).toMatchObject({ interrupted: true, ok: false });
  const memories = (await store.readAll()).filter((e) => e.type === 'MemoryRetained' && JSON.stringify(e.data).includes(runId));
  expect(memories).toEqual([]);
}

describe('runs cancel, run.cancel and cancel_run over NATS (distributed)', () => {
  const prefix = 'cancel';
  let server: ScriptedModelServer;
  let system: DistributedSystem;
  let dir: string;
  let project: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-cancel-nats-'));
    project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    system = await startDistributedSystem({
      prefix,
      storePath: join(dir, 'events.db'),
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' },
      timeoutMs: 30_000,
    });
    env = { STAGECRAFT_SUBJECT_PREFIX: prefix, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
    diagnose = () => system.services.map((s) => `--- ${s.name}\n${s.output().slice(-3000)}`).join('\n');
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    marker = `cancel-marker-${randomUUID()}`;
  });

  /** Starts a run whose command is under way; its id. */
  async function runInCommand(): Promise<string> {
    const runId = `cancel-${randomUUID()}`;
    await system.requester.request('conversation.send', {
      runId,
      message: 'Run the long command',
      userMode: 'agent',
      reasoningEnabled: true,
      projectRoot: project,
    });
    await commandRunning();
    return runId;
  }

  it('runs cancel mid tool call: the command is killed, the call recorded interrupted, the run cancelled with who and why', async () => {
    const runId = await runInCommand();
    const cancelled = await runCli(['runs', 'cancel', runId, '--reason', 'too slow', '--nats-url', system.nats.url], env, 30_000);
    expect({ code: cancelled.code, stderr: cancelled.stderr, stdout: cancelled.stdout }).toEqual({
      code: 0,
      stderr: '',
      stdout: `run ${runId} cancelled\n`,
    });
    await expectCancelled(system.store, runId, 'cli', 'too slow');

    // The runs view says so, with the reason.
    const listed = await eventually(async () => {
      const { stdout } = await runCli(['runs', 'list', '--json', '--nats-url', system.nats.url], env);
      const run = (JSON.parse(stdout) as { runs: RunSummary[] }).runs.find((r) => r.runId === runId);
      return run?.status === 'cancelled' ? run : undefined;
    }, 'the runs view to show the cancellation');
    expect(listed).toMatchObject({ cancellation: { by: 'cli', reason: 'too slow' } });

    // Cancelling again changes nothing, and says the run had ended.
    const before = (await runLog(system.store, runId)).length;
    const again = await runCli(['runs', 'cancel', runId, '--nats-url', system.nats.url], env, 30_000);
    expect({ code: again.code, stdout: again.stdout }).toEqual({
      code: 1,
      stdout: `run ${runId} had already ended (cancelled); nothing changed\n`,
    });
    expect((await runLog(system.store, runId)).length).toBe(before);
  }, 90_000);

  it('Ctrl-C on chat --nats-url cancels the run over NATS and exits 130 once it has settled', async () => {
    const { child, runId: started } = chatUntilCommand(
      ['Run the long command', '--root', project, '--mode', 'agent', '--reasoning', '--nats-url', system.nats.url],
      env,
    );
    const runId = await started;
    child.kill('SIGINT');
    expect(await exited(child)).toBe(130);
    await expectCancelled(system.store, runId, 'user', 'Ctrl-C at the terminal');
  }, 90_000);

  it('a bad or unknown cancel request is refused with a structured error and appends nothing', async () => {
    const runId = await runInCommand();
    const ask = async (body: unknown) =>
      JSON.parse((await system.bus.request(`${prefix}.run.cancel`, JSON.stringify(body), { timeoutMs: 10_000 })).body) as {
        ok: boolean;
        error?: { code: string; message: string; issues: unknown[] };
      };
    const before = (await runLog(system.store, runId)).length;
    for (const body of [
      { runId, by: 'cli', reason: 'x', extra: true },
      { runId, by: 'someone', reason: 'x' },
      { runId, by: 'cli', reason: 'x'.repeat(501) },
      { runId: 'has spaces', by: 'cli' },
    ]) {
      const reply = await ask(body);
      expect(reply).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
      expect(reply.error?.issues.length).toBeGreaterThan(0);
    }
    expect(await ask({ runId: `no-such-${randomUUID()}`, by: 'cli' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const tooLong = await runCli(['runs', 'cancel', runId, '--reason', 'y'.repeat(501), '--nats-url', system.nats.url], env);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain('reason');
    const log = await runLog(system.store, runId);
    expect(log.length).toBe(before);
    expect(log.map((e) => e.type)).not.toContain('RunCancelled');
    expect(processesWith(marker).length).toBeGreaterThan(0);

    // Cleaned up the same way: the run is cancelled for real now.
    expect(await ask({ runId, by: 'operator', reason: 'test done' })).toMatchObject({ ok: true, data: { outcome: 'cancelled' } });
    await expectCancelled(system.store, runId, 'operator', 'test done');
  }, 90_000);

  it("a client may ask for a cancellation but not read others' (run.cancel is not theirs to subscribe to)", async () => {
    const bus = await connectNatsBus({ servers: system.clients.servers, auth: system.clients.auth }, 'cancel-e2e-client');
    try {
      const heard = new Promise<string>((resolve) => {
        natsConnectionOf(bus)!.subscribe(`${prefix}.run.cancel`, {
          callback: (error, msg) => resolve(error ? error.message : `received ${msg.subject}`),
        });
      });
      const requester = createRequester(bus, { prefix, newId: randomUUID, timeoutMs: 10_000 });
      await expect(requester.request('run.cancel', { runId: `no-such-${randomUUID()}`, by: 'cli' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      expect(await heard).toMatch(/Permissions Violation/i);
    } finally {
      await bus.close();
    }
  });

  it('the MCP tool cancel_run cancels a run', async () => {
    const inherited = Object.entries(process.env).filter((e): e is [string, string] => e[0] !== 'LOG_LEVEL' && e[1] !== undefined);
    const client = new Client({ name: 'stagecraft-e2e', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--nats-url', system.nats.url, '--root', project],
        env: { ...Object.fromEntries(inherited), STAGECRAFT_SUBJECT_PREFIX: prefix, STAGECRAFT_STORE: `sqlite:${join(dir, 'events.db')}` },
        stderr: 'pipe',
      }),
    );
    try {
      const runId = await runInCommand();
      // Who cancels is the MCP client, whatever the arguments claim.
      const refused = await client.callTool({ name: 'cancel_run', arguments: { runId, by: 'workflow' } });
      expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'VALIDATION' } });
      const result = await client.callTool({ name: 'cancel_run', arguments: { runId, reason: 'from the assistant' } });
      expect(result.structuredContent).toEqual({ runId, outcome: 'cancelled', status: 'cancelled' });
      await expectCancelled(system.store, runId, 'mcp', 'from the assistant');
    } finally {
      await client.close();
    }
  }, 90_000);
});

/** `stagecraft chat --json` until its run's command is under way. */
function chatUntilCommand(args: string[], env: Record<string, string>): { child: ChildProcess; out: () => string; runId: Promise<string> } {
  const child = spawn(process.execPath, [BIN, 'chat', ...args, '--json'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let requested: (runId: string) => void = () => undefined;
  const seen = new Promise<string>((resolve) => (requested = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const line of stdout.split('\n').slice(0, -1)) {
      const event = JSON.parse(line) as StagecraftEvent;
      if (event.type === 'ToolCallRequested' && event.metadata.runId) requested(event.metadata.runId);
    }
  });
  child.stderr!.on('data', () => undefined);
  const runId = seen.then(async (id) => {
    await commandRunning();
    return id;
  });
  return { child, out: () => stdout, runId };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

describe('Ctrl-C on stagecraft chat (embedded)', () => {
  let server: ScriptedModelServer;
  let dir: string;
  let project: string;
  let storePath: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-cancel-chat-'));
    project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    storePath = join(dir, 'events.db');
    env = {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: 'test',
      STAGECRAFT_MODEL: 'scripted',
      NATS_URL: '',
      STAGECRAFT_STORE: `sqlite:${storePath}`,
    };
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    marker = `cancel-marker-${randomUUID()}`;
  });

  it('the first Ctrl-C cancels the run and exits 130 once it has settled', async () => {
    const {
      child,
      out,
      runId: started,
    } = chatUntilCommand(['Run the long command', '--root', project, '--mode', 'agent', '--reasoning'], env);
    const runId = await started;
    child.kill('SIGINT');
    expect(await exited(child)).toBe(130);
    const printed = out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type?: string; data?: Record<string, unknown> });
    expect(printed.find((e) => e.type === 'RunCancelled')).toMatchObject({ data: { by: 'user', reason: 'Ctrl-C at the terminal' } });
    expect(printed.find((e) => e.type === 'ToolCallCompleted')).toMatchObject({ data: { interrupted: true } });
    expect(printed.at(-1)).toMatchObject({ runId, answer: null });
    const store = createSqliteEventStore({ path: storePath });
    try {
      await expectCancelled(store, runId, 'user', 'Ctrl-C at the terminal');
    } finally {
      await store.close();
    }
    // Ended, but a person may take it up again (runs-resume.e2e continues one to DONE).
    const listed = await runCli(['runs', 'list', '--json'], env);
    const run = (JSON.parse(listed.stdout) as { runs: RunSummary[] }).runs.find((r) => r.runId === runId);
    expect(run).toMatchObject({ status: 'cancelled', resumable: true, cancellation: { by: 'user' } });
  }, 90_000);

  it('runs cancel from another process on the same store stops the chat that drives the run', async () => {
    const {
      child,
      out,
      runId: started,
    } = chatUntilCommand(['Run the long command', '--root', project, '--mode', 'agent', '--reasoning'], env);
    const runId = await started;
    const cancelled = await runCli(['runs', 'cancel', runId, '--reason', 'from elsewhere', '--json'], env, 30_000);
    expect({ code: cancelled.code, stderr: cancelled.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(cancelled.stdout.trim().split('\n').at(-1)!)).toEqual({ runId, outcome: 'cancelled', status: 'cancelled' });
    // The chat's driver finds the cancellation in the log, kills its command and records it; a run someone else cancelled exits 1.
    expect(await exited(child)).toBe(1);
    expect(out()).toContain('"interrupted":true');
    const store = createSqliteEventStore({ path: storePath });
    try {
      await expectCancelled(store, runId, 'cli', 'from elsewhere');
    } finally {
      await store.close();
    }
  }, 90_000);

  it('a second Ctrl-C leaves at once; the run is left cancelled or resumable, never running with no driver and no way on', async () => {
    const { child, runId: started } = chatUntilCommand(['Run the long command', '--root', project, '--mode', 'agent', '--reasoning'], env);
    const runId = await started;
    child.kill('SIGINT');
    child.kill('SIGINT');
    expect(await exited(child)).toBe(130);
    const { stdout } = await runCli(['runs', 'list', '--json'], env);
    const run = (JSON.parse(stdout) as { runs: RunSummary[] }).runs.find((r) => r.runId === runId);
    expect(run?.status === 'cancelled' || (run?.status === 'running' && run.resumable)).toBe(true);
    // The command does not outlive it.
    await eventually(async () => (processesWith(marker).length === 0 ? true : undefined), 'the command to be gone');
  }, 90_000);
});
