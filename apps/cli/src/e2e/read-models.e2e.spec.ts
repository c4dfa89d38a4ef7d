import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseSync } from 'node:sqlite';
import type { RunsListReply } from '@stagecraft/contracts';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { QA_PASS_REPORT, REPO_ROOT, exitOf, freePort, macroReasoning, microReasoning, runCli, toolResultsIn } from '@stagecraft/testing';

const messagesOf = (r: RecordedRequest): { role: string; content?: string | null }[] => r.body.messages ?? [];

/** Delegates the work to a specialist, which reads the README and hands back; then delivery and a passing review. */
function delegatingAgent(r: RecordedRequest): ScriptedReply {
  // The whole prompt (the system message and the stage's part); while a specialist speaks it carries the instruction line.
  const system = messagesOf(r)
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content ?? ''))
    .join('\n\n');
  const delegated = system.includes('Specialist active (');
  const returned = messagesOf(r).some((m) => String(m.content ?? '').includes('returned control'));
  switch (r.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will ask a specialist.` };
    case 'act':
    case 'tool_followup':
      if (!delegated && !returned)
        return {
          content: `${microReasoning('delegate')}\n<delegate-reasoning agent="reviewer">Read README.md and report one improvement.</delegate-reasoning>`,
        };
      if (delegated && toolResultsIn(r.body) === 0)
        return {
          content: microReasoning('read README.md'),
          toolCalls: [{ id: 'spec_read', name: 'read_file', arguments: { path: 'README.md' } }],
        };
      if (delegated) return { content: `${microReasoning('hand back')}\n<return-control>Add a usage section.</return-control>` };
      return { content: `${microReasoning('answer', 'DONE')}\nThe reviewer suggests a usage section.` };
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nDone.` };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${r.stage}` };
  }
}

/**
 * The read models from the outside, over a store the CLI wrote with a mixed workload: `replay
 * --verify` finds every live view equal to a rebuild until a checkpoint is edited by hand, and
 * `runs list` shows the runs with their tokens, the failed one, and the one whose process died.
 */
describe('stagecraft replay and stagecraft runs list, on a store the CLI wrote', () => {
  let dir: string;
  let project: string;
  let dbPath: string;
  let hanging: ScriptedModelServer;
  let delegating: ScriptedModelServer;
  const runIds: Record<'agent' | 'chat' | 'turn' | 'compacted' | 'delegated' | 'failed' | 'killed', string> = {
    agent: '',
    chat: '',
    turn: '',
    compacted: '',
    delegated: '',
    failed: '',
    killed: '',
  };
  const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
  const store = () => `sqlite:${dbPath}`;

  async function chat(
    args: string[],
    extraEnv: Record<string, string> = {},
  ): Promise<{ code: number | null; runId: string; conversationId: string }> {
    const { code, stdout, stderr } = await runCli(
      ['chat', ...args, '--root', project, '--json', '--store', store()],
      { ...env, ...extraEnv },
      60_000,
    );
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { runId?: string; conversationId?: string };
    if (!result.runId) throw new Error(`chat printed no result (exit ${code}):\n${stdout}\n${stderr}`);
    return { code, runId: result.runId, conversationId: result.conversationId ?? '' };
  }

  /** A chat whose model never answers, killed once its run has asked: the run stays started and never ends. */
  async function killedChat(): Promise<string> {
    const child = spawn(
      process.execPath,
      [
        join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs'),
        'chat',
        'Describe the project',
        '--root',
        project,
        '--mode',
        'chat',
        '--json',
        '--store',
        store(),
      ],
      {
        env: { ...process.env, ...env, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: hanging.url, LOG_LEVEL: 'error' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const deadline = Date.now() + 30_000;
    while (hanging.requests.length === 0 && Date.now() < deadline) await sleep(20);
    child.kill('SIGKILL');
    await exitOf(child);
    const started = stdout.split('\n').find((line) => line.includes('"RunStarted"'));
    if (!started) throw new Error(`the chat that was to be killed printed no RunStarted:\n${stdout}`);
    return (JSON.parse(started) as { data: { runId: string } }).data.runId;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-read-models-'));
    project = join(dir, 'sample-project');
    dbPath = join(dir, 'events.db');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    hanging = await startScriptedModelServer({ script: () => ({ delayMs: 120_000, content: 'too late' }) });
    delegating = await startScriptedModelServer({ script: delegatingAgent });

    const agent = await chat(['Summarise this project in NOTES.md', '--mode', 'agent', '--reasoning']);
    const chatRun = await chat(['What does convert.js do?', '--mode', 'chat']);
    const turn = await chat(['And stats.js?', '--mode', 'chat', '--reasoning', '--conversation', chatRun.conversationId]);
    // A third turn with a tiny compaction trigger: the run compacts the earlier turns, and so does the conversation.
    const compacted = await chat(['And the tests?', '--mode', 'chat', '--conversation', chatRun.conversationId], {
      STAGECRAFT_COMPACT_MAX_MESSAGES: '4',
    });
    const delegated = await chat(['Review the README', '--mode', 'agent', '--reasoning'], {
      OPENAI_API_KEY: 'test',
      OPENAI_BASE_URL: delegating.url,
    });
    const unreachable = `http://127.0.0.1:${await freePort()}/v1`;
    const failed = await chat(['Explain the layout', '--mode', 'chat'], {
      OPENAI_API_KEY: 'test',
      OPENAI_BASE_URL: unreachable,
      STAGECRAFT_MODEL_MAX_RETRIES: '0',
    });
    // The model endpoint was unreachable: the run failed for a dependency, exit 3.
    expect([agent.code, chatRun.code, turn.code, compacted.code, delegated.code, failed.code]).toEqual([0, 0, 0, 0, 0, 3]);
    Object.assign(runIds, {
      agent: agent.runId,
      chat: chatRun.runId,
      turn: turn.runId,
      compacted: compacted.runId,
      delegated: delegated.runId,
      failed: failed.runId,
      killed: await killedChat(),
    });
  }, 180_000);

  afterAll(async () => {
    await hanging?.close();
    await delegating?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const verify = (...args: string[]) => runCli(['replay', '--verify', ...args, '--store', store()], env, 60_000);
  const rowOf = (stdout: string, name: string) =>
    stdout
      .split('\n')
      .find((line) => line.startsWith(`${name} `))
      ?.split(/\s{2,}/);
  const listRuns = async (args: string[], extraEnv: Record<string, string> = {}) => {
    const { code, stdout, stderr } = await runCli(['runs', 'list', ...args, '--store', store()], { ...env, ...extraEnv });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    return stdout;
  };

  it('replay --verify: every live view equals its rebuild; a view without a checkpoint is said to have none', async () => {
    // The workload holds every kind of run: completed, failed, killed, compacted and delegating.
    const db = new DatabaseSync(dbPath, { readOnly: true });
    const types = db
      .prepare('SELECT DISTINCT type FROM events')
      .all()
      .map((row) => (row as { type: string }).type);
    const delegations = db
      .prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'InstructionIssued' AND data LIKE '%DelegateReasoning%'")
      .get() as { n: number };
    db.close();
    // Completed runs left run-outcome memories, so the memories view has something to rebuild.
    expect(types).toEqual(
      expect.arrayContaining(['HistoryCompacted', 'InstructionIssued', 'RunFailed', 'RunCompleted', 'MemoryRetained', 'IndexUpdated']),
    );
    expect(delegations.n).toBeGreaterThan(0);
    const { code, stdout, stderr } = await verify();
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    for (const name of ['memory-reasoning-outcome', 'memory-runs-v2', 'memory-history', 'memory-memories', 'memory-codebase-index'])
      expect(rowOf(stdout, name)?.at(-1)).toBe('same');
    // The chats ran without resuming runs, so the conversation service never saved its view.
    expect(rowOf(stdout, 'conversation-active-runs')?.at(-1)).toBe('no checkpoint yet');

    const named = await verify('--projection', 'conversation-active-runs');
    expect(named.code).toBe(1);
    expect(rowOf(named.stdout, 'conversation-active-runs')?.at(-1)).toBe('no checkpoint yet');
  }, 90_000);

  it('runs replay decides every run of the workload again with the same events, and audit finds every invariant kept', async () => {
    for (const id of Object.values(runIds)) {
      const { code, stdout } = await runCli(['runs', 'replay', id, '--store', store()], env);
      expect({ id, code, stdout }).toEqual({ id, code: 0, stdout: expect.stringContaining('all identical') });
    }
    const audit = await runCli(['audit', '--store', store()], env);
    expect({ code: audit.code, stdout: audit.stdout }).toEqual({ code: 0, stdout: expect.stringContaining('every invariant holds') });
  }, 120_000);

  it('runs list --json: every run, newest first, with its tokens, the failure, and the run whose process was killed still running', async () => {
    const reply = JSON.parse(await listRuns(['--json'])) as RunsListReply;
    expect(reply.runs.map((r) => r.runId)).toEqual([
      runIds.killed,
      runIds.failed,
      runIds.delegated,
      runIds.compacted,
      runIds.turn,
      runIds.chat,
      runIds.agent,
    ]);
    const byId = new Map(reply.runs.map((r) => [r.runId, r]));
    for (const id of [runIds.agent, runIds.chat, runIds.turn, runIds.compacted, runIds.delegated]) {
      const run = byId.get(id)!;
      expect({ status: run.status, deliveryState: run.deliveryState, qaVerdict: run.qaVerdict }).toEqual({
        status: 'completed',
        deliveryState: 'DONE',
        qaVerdict: 'pass',
      });
      const usage = Object.values(run.tokens);
      expect(usage.reduce((n, u) => n + u.promptTokens, 0)).toBeGreaterThan(0);
      expect(usage.reduce((n, u) => n + u.completionTokens, 0)).toBeGreaterThan(0);
    }
    expect(byId.get(runIds.failed)).toMatchObject({ status: 'failed', failure: { code: 'UNAVAILABLE' } });
    expect(byId.get(runIds.killed)).toMatchObject({ status: 'running', endedAt: null, stuck: false });

    const failedOnly = JSON.parse(await listRuns(['--json', '--status', 'failed'])) as RunsListReply;
    expect(failedOnly.runs.map((r) => r.runId)).toEqual([runIds.failed]);
    expect((JSON.parse(await listRuns(['--json', '--limit', '2'])) as RunsListReply).runs).toHaveLength(2);
  }, 60_000);

  it('runs list --stuck: the killed run once it has been idle longer than STAGECRAFT_STUCK_AFTER_MS, and nothing before', async () => {
    const stuck = JSON.parse(await listRuns(['--stuck', '--json'], { STAGECRAFT_STUCK_AFTER_MS: '1' })) as RunsListReply;
    expect(stuck.runs.map((r) => [r.runId, r.status, r.stuck])).toEqual([[runIds.killed, 'running', true]]);
    expect((JSON.parse(await listRuns(['--stuck', '--json'])) as RunsListReply).runs).toEqual([]);

    const table = await listRuns(['--stuck'], { STAGECRAFT_STUCK_AFTER_MS: '1' });
    expect(table.split('\n')[0].split(/\s{2,}/)).toEqual([
      'RUN',
      'STATUS',
      'STAGE',
      'STARTED',
      'DURATION',
      'MODEL CALLS',
      'TOKENS (P/CACHED/C)',
      'COST',
      'DELIVERY',
      'QA',
    ]);
    expect(rowOf(table, runIds.killed)?.[1]).toBe('running (stuck, resumable)');
  }, 60_000);

  it('runs list rejects a bad status with a usage error and changes nothing', async () => {
    const { code, stderr } = await runCli(['runs', 'list', '--status', 'lost', '--store', store()], env);
    expect(code).toBe(2);
    expect(stderr).toContain('status');
  });

  it('replay --verify names the view and the value when a checkpoint was edited by hand, and a rebuild repairs it', async () => {
    const db = new DatabaseSync(dbPath);
    const row = db.prepare("SELECT state FROM checkpoints WHERE name = 'memory-runs-v2'").get() as { state: string };
    const view = JSON.parse(row.state) as { runs: Record<string, { status: string }> };
    view.runs[runIds.failed].status = 'completed';
    db.prepare("UPDATE checkpoints SET state = ? WHERE name = 'memory-runs-v2'").run(JSON.stringify(view));
    db.close();

    const edited = await verify();
    expect(edited.code).toBe(1);
    expect(rowOf(edited.stdout, 'memory-runs-v2')?.at(-1)).toBe('DIFFERS');
    expect(rowOf(edited.stdout, 'memory-history')?.at(-1)).toBe('same');
    expect(edited.stdout).toContain(`  $.runs["${runIds.failed}"].status: live "completed", rebuilt "failed"`);

    const rebuilt = await runCli(['replay', '--store', store()], env, 60_000);
    expect({ code: rebuilt.code, stderr: rebuilt.stderr }).toEqual({ code: 0, stderr: '' });
    const [, position, size, folded] = rowOf(rebuilt.stdout, 'memory-runs-v2') ?? [];
    expect(Number(position)).toBeGreaterThan(0);
    expect(size).toMatch(/^\d+ bytes$/);
    expect(Number(folded)).toBeGreaterThan(0);
    const repaired = await verify();
    expect({ code: repaired.code, stdout: repaired.stdout }).toEqual({ code: 0, stdout: expect.not.stringContaining('DIFFERS') });
    expect(rowOf(repaired.stdout, 'conversation-active-runs')?.at(-1)).toBe('same');
  }, 120_000);

  it('replay --projection with an unknown name is a usage error that lists the read models', async () => {
    const { code, stdout, stderr } = await runCli(['replay', '--projection', 'nope', '--store', store()], env);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toContain("unknown read model 'nope'");
    for (const name of ['conversation-active-runs', 'memory-runs-v2', 'memory-history', 'memory-reasoning-outcome'])
      expect(stderr).toContain(name);
  });
});
