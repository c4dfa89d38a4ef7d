import { ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunSummary, StagecraftEvent } from '@stagecraft/contracts';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { QA_PASS_REPORT, REPO_ROOT, eventually, macroReasoning, microReasoning, runCli, toolResultsIn } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * A run whose process went away (killed, or left with a second Ctrl-C) is not left `running` forever:
 * `runs list` says it is resumable, and `runs resume` or `chat --continue` drives it to its end from
 * another process, embedded or over NATS.
 */

const BIN = join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs');
/** Long enough to kill the CLI while the command runs. */
const SLOW_COMMAND_MS = 6000;

/** One slow command, then a note, then DONE; the note's text says whether the command's result came back. */
function script(request: RecordedRequest): ScriptedReply {
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will wait, then write a note.` };
    case 'act':
    case 'tool_followup': {
      const done = toolResultsIn(request.body);
      if (done === 0)
        return {
          content: microReasoning('wait'),
          toolCalls: [
            {
              id: 'call_wait',
              name: 'run_command',
              arguments: {
                command: 'node',
                args: ['-e', `require('fs').appendFileSync('RAN.txt', 'x'); setTimeout(() => {}, ${SLOW_COMMAND_MS})`],
              },
            },
          ],
        };
      if (done === 1)
        return {
          content: microReasoning('note it'),
          toolCalls: [{ id: 'call_note', name: 'write_file', arguments: { path: 'NOTE.md', content: 'resumed\n' } }],
        };
      return { content: `${microReasoning('finish', 'DONE')}\nWaited and wrote NOTE.md.` };
    }
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nDone.` };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

/** Starts `stagecraft chat --json` and resolves once the run's first tool call is under way, with the run's id. */
function chatUntilToolCall(args: string[], env: Record<string, string>): { child: ChildProcess; runId: Promise<string> } {
  // Each run notes its command's start afresh.
  const root = args[args.indexOf('--root') + 1];
  rmSync(join(root, 'RAN.txt'), { force: true });
  const child = spawn(process.execPath, [BIN, 'chat', ...args, '--json'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buffered = '';
  const runId = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n').slice(0, -1)) {
        const event = JSON.parse(line) as StagecraftEvent;
        if (event.type === 'ToolCallRequested' && event.metadata.runId) resolve(event.metadata.runId);
      }
    });
    child.once('exit', (code) => reject(new Error(`chat exited (${code}) before its tool call:\n${buffered}`)));
  });
  return { child, runId };
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

/** The slow command has begun (it notes each start in RAN.txt): a cancellation now cuts it off. */
const commandStarted = (project: string) =>
  eventually(async () => (existsSync(join(project, 'RAN.txt')) ? true : undefined), 'the slow command to start');

const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as Record<string, unknown>;

describe('runs resume and chat --continue (embedded)', () => {
  let server: ScriptedModelServer;
  let dir: string;
  let project: string;
  let store: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-resume-cli-'));
    project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    store = `sqlite:${join(dir, 'events.db')}`;
    env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted', NATS_URL: '', STAGECRAFT_STORE: store };
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const listRuns = async (): Promise<RunSummary[]> => {
    const listed = await runCli(['runs', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    return (JSON.parse(listed.stdout) as { runs: RunSummary[] }).runs;
  };

  it('a run whose CLI was killed mid tool call is listed resumable and runs resume drives it to DONE', async () => {
    const { child, runId: started } = chatUntilToolCall(
      ['Wait, then write a note', '--root', project, '--mode', 'agent', '--reasoning'],
      env,
    );
    const runId = await started;
    await commandStarted(project);
    await killed(child);

    const before = (await listRuns()).find((run) => run.runId === runId);
    expect(before).toMatchObject({ status: 'running', resumable: true });
    const table = await runCli(['runs', 'list'], env);
    expect(table.stdout).toMatch(new RegExp(`${runId}\\s+running \\((stuck, )?resumable\\)`));

    const resumed = await runCli(['runs', 'resume', runId, '--json'], env, 60_000);
    expect({ code: resumed.code, stderr: resumed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(lastJson(resumed.stdout)).toMatchObject({ runId, deliveryState: 'DONE', answer: 'Waited and wrote NOTE.md.' });
    // The cut-off command is recorded as interrupted, never run again; the run went on from its log.
    const events = resumed.stdout
      .trim()
      .split('\n')
      .slice(0, -1)
      .map((l) => JSON.parse(l) as StagecraftEvent);
    expect(events.find((e) => e.type === 'ToolCallCompleted' && e.data.tool === 'run_command')).toMatchObject({
      data: { ok: false },
    });
    expect(events.filter((e) => e.type === 'RunStarted')).toEqual([]);
    expect(readFileSync(join(project, 'NOTE.md'), 'utf8')).toBe('resumed\n');
    expect(readFileSync(join(project, 'RAN.txt'), 'utf8')).toBe('x');
    expect((await listRuns()).find((run) => run.runId === runId)).toMatchObject({ status: 'completed', resumable: false });

    // Nothing is left to resume: said so, with a distinct refusal and nothing appended.
    const again = await runCli(['runs', 'resume', runId], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/has ended \(completed\)/);
  }, 120_000);

  it('Ctrl-C cancels the run; runs resume continues it to DONE without running the cut-off command again', async () => {
    const { child, runId: started } = chatUntilToolCall(
      ['Wait, then write a note', '--root', project, '--mode', 'agent', '--reasoning'],
      env,
    );
    const runId = await started;
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await commandStarted(project);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect((await listRuns()).find((run) => run.runId === runId)).toMatchObject({ status: 'cancelled', resumable: true });

    const resumed = await runCli(['runs', 'resume', runId], env, 60_000);
    expect({ code: resumed.code, stderr: resumed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(resumed.stdout).toContain(`continuing cancelled run ${runId}`);
    expect(resumed.stdout).toContain('↻ continued by cli after its cancellation');
    expect(resumed.stdout).toMatch(/✔ completed \(DONE\)/);
    expect(readFileSync(join(project, 'RAN.txt'), 'utf8')).toBe('x');
    expect((await listRuns()).find((run) => run.runId === runId)).toMatchObject({ status: 'completed', resumable: false });
  }, 120_000);

  it('chat names the unfinished run of its conversation; chat --continue finishes it, then sends the new message', async () => {
    rmSync(join(project, 'NOTE.md'), { force: true });
    const { child, runId: started } = chatUntilToolCall(
      ['Wait, then write a note', '--root', project, '--mode', 'agent', '--reasoning'],
      env,
    );
    const runId = await started;
    await commandStarted(project);
    await killed(child);
    const conversationId = (await listRuns()).find((run) => run.runId === runId)?.conversationId;
    expect(conversationId).toBeDefined();

    const continued = await runCli(
      ['chat', 'And once more', '--continue', '--root', project, '--mode', 'agent', '--reasoning'],
      env,
      90_000,
    );
    expect({ code: continued.code, stderr: continued.stderr }).toEqual({ code: 0, stderr: '' });
    expect(continued.stdout).toContain(`resuming run ${runId}`);
    expect(continued.stdout.match(/✔ completed \(DONE\)/g)).toHaveLength(2);
    const runs = (await listRuns()).filter((run) => run.conversationId === conversationId);
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed']);

    // Without --continue, an unfinished run of the conversation is named, not silently left behind.
    const { child: third, runId: thirdStarted } = chatUntilToolCall(
      ['Wait again', '--root', project, '--conversation', conversationId!, '--mode', 'agent', '--reasoning'],
      env,
    );
    const thirdRun = await thirdStarted;
    await commandStarted(project);
    await killed(third);
    const named = await runCli(
      ['chat', 'Something else', '--root', project, '--conversation', conversationId!, '--mode', 'agent', '--reasoning'],
      env,
      60_000,
    );
    expect(named.stderr).toContain(`run ${thirdRun} of conversation ${conversationId} is unfinished`);
    expect(named.stderr).toContain(`stagecraft runs resume ${thirdRun}`);
    expect({ code: named.code, stdout: named.stdout }).toEqual({ code: 0, stdout: expect.stringMatching(/✔ completed \(DONE\)/) });
  }, 180_000);
});

describe('runs resume over NATS', () => {
  const prefix = 'resumecli';
  let server: ScriptedModelServer;
  let system: DistributedSystem;
  let dir: string;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-resume-nats-'));
    system = await startDistributedSystem({
      prefix,
      storePath: join(dir, 'events.db'),
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' },
      timeoutMs: 30_000,
    });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a client that left follows the run again from another process, to its end', async () => {
    const project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const env = { STAGECRAFT_SUBJECT_PREFIX: prefix, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
    const { child, runId: started } = chatUntilToolCall(
      ['Wait, then write a note', '--root', project, '--mode', 'agent', '--reasoning', '--nats-url', system.nats.url],
      env,
    );
    const runId = await started;
    await commandStarted(project);
    await killed(child);

    const resumed = await runCli(['runs', 'resume', runId, '--nats-url', system.nats.url, '--json'], env, 60_000);
    expect({ code: resumed.code, stderr: resumed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(lastJson(resumed.stdout)).toMatchObject({ runId, deliveryState: 'DONE', answer: 'Waited and wrote NOTE.md.' });
    expect(readFileSync(join(project, 'NOTE.md'), 'utf8')).toBe('resumed\n');

    // Cancelled over NATS, then taken up again over NATS from yet another process.
    const second = chatUntilToolCall(
      ['Wait, then write a note', '--root', project, '--mode', 'agent', '--reasoning', '--nats-url', system.nats.url],
      env,
    );
    const secondRun = await second.runId;
    await commandStarted(project);
    await killed(second.child);
    const cancelledRun = await runCli(['runs', 'cancel', secondRun, '--reason', 'not now', '--nats-url', system.nats.url], env, 30_000);
    expect(cancelledRun.code).toBe(0);
    const continued = await runCli(['runs', 'resume', secondRun, '--nats-url', system.nats.url, '--json'], env, 60_000);
    expect({ code: continued.code, stderr: continued.stderr }).toEqual({ code: 0, stderr: '' });
    expect(lastJson(continued.stdout)).toMatchObject({ runId: secondRun, deliveryState: 'DONE' });
    expect(readFileSync(join(project, 'RAN.txt'), 'utf8')).toBe('x');

    const unknown = await runCli(['runs', 'resume', 'no-such-run', '--nats-url', system.nats.url], env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/NOT_FOUND|no run/);
  }, 120_000);
});
