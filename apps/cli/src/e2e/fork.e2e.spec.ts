import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT, readWriteAgentScript, runCli } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

type Shown = { type: string; data: Record<string, unknown>; metadata: { commitStart?: number } };

/** `stagecraft runs fork` as a user runs it: a stored run started again from one of its stage boundaries, then replayed and audited. */
describe('stagecraft runs fork, embedded, on a store the CLI wrote', () => {
  let dir: string;
  let project: string;
  let runId: string;
  let events: Shown[];
  const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
  const store = () => `sqlite:${join(dir, 'events.db')}`;
  const lines = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-fork-'));
    project = join(dir, 'sample-project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const chat = await runCli(
      ['chat', 'Summarise this project in NOTES.md', '--root', project, '--mode', 'agent', '--reasoning', '--json', '--store', store()],
      env,
      60_000,
    );
    expect(chat.code).toBe(0);
    runId = (lines(chat.stdout).at(-1) as { runId: string }).runId;
    const shown = await runCli(['runs', 'show', runId, '--json', '--store', store()], env);
    expect(shown.code).toBe(0);
    events = lines(shown.stdout) as Shown[];
  }, 90_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('forks the run where it entered the delivery check, follows the new run to its end, and replays and audits it clean', async () => {
    const at = events.findIndex((e) => e.type === 'StageEntered' && e.data['stage'] === 'delivery_check');
    expect(events[at + 1].metadata.commitStart).toBe(at + 1);

    const forked = await runCli(['runs', 'fork', runId, '--at', String(at), '--json', '--store', store()], env, 60_000);
    expect({ code: forked.code, stderr: forked.stderr }).toEqual({ code: 0, stderr: '' });
    const printed = lines(forked.stdout);
    const result = printed.at(-1) as { runId: string; deliveryState: string; forkedFrom: unknown };
    expect(result).toMatchObject({ deliveryState: 'DONE', forkedFrom: { runId, revision: at } });
    expect(result.runId).not.toBe(runId);
    // The feed is the new run's whole stream: the copied head first, then what was decided after it.
    expect(printed[0]).toMatchObject({ type: 'RunStarted', data: { runId: result.runId, forkedFrom: { runId, revision: at } } });
    expect(printed.slice(0, at + 1).map((e) => e['type'])).toEqual(events.slice(0, at + 1).map((e) => e.type));
    expect(printed.slice(at + 1, -1).map((e) => e['type'])).toContain('QAReportIssued');

    const replayed = await runCli(['runs', 'replay', result.runId, '--store', store()], env, 30_000);
    expect({ code: replayed.code, stderr: replayed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(replayed.stdout).toMatch(
      new RegExp(
        `run ${result.runId}: \\d+ events decided again in \\d+ decisions after the ${at + 1} copied as recorded from run ${runId}, all identical`,
      ),
    );
    const audited = await runCli(['audit', '--run', result.runId, '--store', store()], env, 30_000);
    expect({ code: audited.code, stdout: audited.stdout.trim() }).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        /^hash chain: \d+ event\(s\) in 1 stream\(s\) verified: intact\naudited 1 run\(s\): every invariant holds$/,
      ),
    });
    // The old run is still as it was.
    const shown = await runCli(['runs', 'show', runId, '--json', '--store', store()], env);
    expect(lines(shown.stdout)).toEqual(events);
  }, 120_000);

  it('prints the new run like chat does', async () => {
    const at = events.findIndex((e) => e.type === 'StageEntered' && e.data['stage'] === 'qa_review');
    const { code, stdout, stderr } = await runCli(['runs', 'fork', runId, '--at', String(at), '--store', store()], env, 60_000);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.split('\n')[1]).toContain(`forking run ${runId} at revision ${at}`);
    expect(stdout).toContain('▶ qa_review');
    expect(stdout).toMatch(/✔ completed \(DONE\)/);
  }, 60_000);

  it('refuses a point inside a commit or an unknown run, naming why, and exits 2', async () => {
    const inside = await runCli(['runs', 'fork', runId, '--at', '1', '--store', store()], env, 60_000);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain(`revision 1 of run ${runId} is inside the commit of revisions 0..2; the nearest commit ends are 2`);
    const unknown = await runCli(['runs', 'fork', 'run-nowhere', '--at', '3', '--store', store()], env, 60_000);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no run run-nowhere');
  }, 90_000);
});

describe('stagecraft runs fork --nats-url, against the distributed system', () => {
  const prefix = 'forke2e';
  let dir: string;
  let server: ScriptedModelServer;
  let system: DistributedSystem;
  const env = () => ({ OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '', STAGECRAFT_SUBJECT_PREFIX: prefix });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-fork-nats-'));
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), join(dir, 'project'), { recursive: true });
    server = await startScriptedModelServer({ script: readWriteAgentScript });
    system = await startDistributedSystem({
      prefix,
      storePath: join(dir, 'events.db'),
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' },
    });
  }, 60_000);
  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks the conversation service over NATS and follows the new run to its end', async () => {
    const nats = ['--nats-url', system.nats.url];
    const chat = await runCli(
      ['chat', 'Write notes about this project', '--root', join(dir, 'project'), '--reasoning', '--json', ...nats],
      env(),
      60_000,
    );
    expect(chat.code).toBe(0);
    const runId = (JSON.parse(chat.stdout.trim().split('\n').at(-1) ?? '{}') as { runId: string }).runId;
    const stored = await system.store.readStream(`run-${runId}`);
    const at = stored.findIndex((e) => e.type === 'StageEntered' && (e.data as { stage: string }).stage === 'delivery_check');

    const forked = await runCli(['runs', 'fork', runId, '--at', String(at), '--json', ...nats], env(), 60_000);
    expect({ code: forked.code, stderr: forked.stderr }).toEqual({ code: 0, stderr: '' });
    const result = JSON.parse(forked.stdout.trim().split('\n').at(-1) ?? '{}') as { runId: string };
    expect(result).toMatchObject({ deliveryState: 'DONE', forkedFrom: { runId, revision: at } });
    const replayed = await runCli(['runs', 'replay', result.runId, '--store', `sqlite:${join(dir, 'events.db')}`], env(), 30_000);
    expect({ code: replayed.code, stderr: replayed.stderr }).toEqual({ code: 0, stderr: '' });
  }, 120_000);
});
