import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventData, StagecraftEvent } from '@stagecraft/contracts';
import { runIds } from '@stagecraft/run';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT, readWriteAgentScript, runCli } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * `chat --approve writes` without a terminal, embedded: the run stops before its write and the command
 * exits 4 (waiting); `stagecraft approve` in another process answers and drives the run to its end.
 */
describe('stagecraft chat --approve and stagecraft approve, embedded, without a terminal', () => {
  let dir: string;
  let project: string;
  const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
  const NOTES = 'STAGECRAFT_NOTES.md';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-approve-'));
    project = join(dir, 'sample-project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => rmSync(join(project, NOTES), { force: true }));

  /** Starts a run that waits before its write; returns its id, read from the hint the command prints. */
  async function chatUntilWaiting(store: string): Promise<string> {
    const { code, stdout, stderr } = await runCli(
      [
        'chat',
        `Summarise this project in ${NOTES}`,
        '--root',
        project,
        '--mode',
        'agent',
        '--reasoning',
        '--approve',
        'writes',
        '--store',
        store,
      ],
      env,
      60_000,
    );
    expect({ code, stderr }).toEqual({ code: 4, stderr: '' });
    expect(stdout).toContain(`⏸ waiting for approval: write_file ${NOTES}`);
    expect(stdout).not.toContain('✔ completed');
    const hint = /answer with: stagecraft approve (\S+) \[--deny --reason TEXT\] --root (\S+)/.exec(stdout);
    expect(hint?.[2]).toBe(project);
    expect(existsSync(join(project, NOTES))).toBe(false);
    return hint![1];
  }

  it('exits 4 (waiting) before writing; an approval from another process writes the file and finishes the run', async () => {
    const store = `sqlite:${join(dir, 'approve.db')}`;
    const runId = await chatUntilWaiting(store);
    const approved = await runCli(['approve', runId, '--root', project, '--store', store], env, 60_000);
    expect({ code: approved.code, stderr: approved.stderr }).toEqual({ code: 0, stderr: '' });
    expect(approved.stdout).toContain(`approving write_file ${NOTES}`);
    expect(approved.stdout).toMatch(/✔ completed \(DONE\)/);
    expect(existsSync(join(project, NOTES))).toBe(true);

    // Nothing waits any more: a second answer is refused and changes nothing.
    const again = await runCli(['approve', runId, '--root', project, '--store', store], env, 60_000);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('waits for no approval');
  });

  it('with --deny the file is never written, and the run still finishes', async () => {
    const store = `sqlite:${join(dir, 'deny.db')}`;
    const runId = await chatUntilWaiting(store);
    const denied = await runCli(
      ['approve', runId, '--deny', '--reason', 'no new files', '--root', project, '--store', store, '--json'],
      env,
      60_000,
    );
    expect(denied.code).toBe(0);
    const lines = denied.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'ApprovalDenied', data: { reason: 'no new files' } });
    expect(lines).toContainEqual(
      expect.objectContaining({ type: 'ToolCallRejected', data: expect.objectContaining({ code: 'FORBIDDEN_TOOL' }) }),
    );
    expect(lines.at(-1)).toMatchObject({ runId, deliveryState: expect.any(String) });
    expect(existsSync(join(project, NOTES))).toBe(false);
    const shown = await runCli(['runs', 'show', runId, '--store', store], env);
    expect(shown.stdout).toContain('RunCompleted');
  });

  it('refuses an approval choice it does not know before starting anything', async () => {
    const { code, stderr } = await runCli(['chat', 'hi', '--root', project, '--approve', 'sometimes'], env);
    expect(code).not.toBe(0);
    expect(stderr).toContain('never, writes or commands');
  });
});

/** The distributed deployment: `chat --nats-url` keeps following while another process answers over NATS. */
describe('stagecraft approve over NATS while chat --nats-url follows the run', () => {
  const prefix = 'approve';
  let server: ScriptedModelServer;
  let system: DistributedSystem;
  let dir: string;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script: readWriteAgentScript });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-approve-nats-'));
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

  it('the follower waits without a terminal; an approval from a third process lets the run write and finish', async () => {
    const project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const env = { STAGECRAFT_SUBJECT_PREFIX: prefix, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
    // Every run's live feed: the chat below picks its own run id.
    let asked: (approval: EventData<'ApprovalRequested'>) => void = () => undefined;
    const approval = new Promise<EventData<'ApprovalRequested'>>((resolve) => (asked = resolve));
    const feed = system.bus.subscribe(`${prefix}.run.*.events`, (m) => {
      const event = JSON.parse(m.body) as StagecraftEvent;
      if (event.type === 'ApprovalRequested') asked(event.data);
    });
    await system.bus.flush();
    const chatting = runCli(
      [
        'chat',
        'Write notes about this project',
        '--root',
        project,
        '--mode',
        'agent',
        '--reasoning',
        '--approve',
        'writes',
        '--nats-url',
        system.nats.url,
      ],
      env,
      90_000,
    );
    const { callId, summary } = await approval;
    feed.unsubscribe();
    expect(summary).toBe('write_file NOTES.md');
    expect(existsSync(join(project, 'NOTES.md'))).toBe(false);
    const runId = runIds.runOfToolCall(callId ?? '');
    expect(runId).not.toBeNull();

    const approved = await runCli(['approve', runId!, '--nats-url', system.nats.url], env, 60_000);
    expect({ code: approved.code, stderr: approved.stderr }).toEqual({ code: 0, stderr: '' });
    const chatted = await chatting;
    expect({ code: chatted.code, stderr: chatted.stderr }).toEqual({ code: 0, stderr: '' });
    expect(chatted.stdout).toContain('⏸ waiting for approval: write_file NOTES.md');
    expect(chatted.stdout).toContain('✓ approved');
    expect(chatted.stdout).toMatch(/✔ completed \(DONE\)/);
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe('Sample project notes.\n');
  }, 120_000);
});
