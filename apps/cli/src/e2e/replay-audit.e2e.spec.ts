import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from '@stagecraft/testing';

/** A stored run checked from the outside: decided again with no model (`runs replay`), and audited (`audit`). */
describe('stagecraft runs replay and stagecraft audit, on a store the CLI wrote', () => {
  let dir: string;
  let project: string;
  let dbPath: string;
  let runId: string;
  const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
  const store = () => `sqlite:${dbPath}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-replay-'));
    project = join(dir, 'sample-project');
    dbPath = join(dir, 'events.db');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const { code, stdout } = await runCli(
      ['chat', 'Summarise this project in NOTES.md', '--root', project, '--mode', 'agent', '--reasoning', '--json', '--store', store()],
      env,
      60_000,
    );
    expect(code).toBe(0);
    runId = (JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { runId: string }).runId;
  }, 90_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replays the run from its log with every event identical, and audits it clean', async () => {
    const replayed = await runCli(['runs', 'replay', runId, '--store', store()], env, 30_000);
    expect({ code: replayed.code, stderr: replayed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(replayed.stdout).toMatch(new RegExp(`run ${runId}: \\d+ events decided again in \\d+ decisions, all identical`));
    const audited = await runCli(['audit', '--store', store()], env, 30_000);
    expect({
      code: audited.code,
      stdout: audited.stdout.trim().replace(/\d+ event\(s\) in \d+ stream\(s\)/, 'N event(s) in M stream(s)'),
    }).toEqual({
      code: 0,
      stdout: 'hash chain: N event(s) in M stream(s) verified: intact\naudited 1 run(s): every invariant holds',
    });
  }, 60_000);

  it('names the event when the stored answer was changed by hand: replay differs there and audit says QA changed it', async () => {
    const db = new DatabaseSync(dbPath);
    const row = db.prepare("SELECT revision, data FROM events WHERE stream_id = ? AND type = 'RunCompleted'").get(`run-${runId}`) as {
      revision: number;
      data: string;
    };
    const data = { ...(JSON.parse(row.data) as object), answer: 'A better answer, rewritten after the fact.' };
    db.prepare("UPDATE events SET data = ? WHERE stream_id = ? AND type = 'RunCompleted'").run(JSON.stringify(data), `run-${runId}`);
    db.close();

    const replayed = await runCli(['runs', 'replay', runId, '--store', store()], env, 30_000);
    expect(replayed.code).toBe(1);
    expect(replayed.stdout).toContain(`run ${runId}: event ${row.revision} differs (events differ)`);
    const audited = await runCli(['audit', '--run', runId, '--store', store()], env, 30_000);
    expect(audited.code).toBe(1);
    expect(audited.stdout).toContain(`run ${runId}: event ${row.revision} (RunCompleted) breaks qa-read-only`);
    // The edit is also a break in the run stream's hash chain, named the same way by both commands.
    const link = `stream run-${runId}: revision ${row.revision} (RunCompleted) breaks the hash chain: its content was changed after it was appended`;
    expect(replayed.stdout).toContain(`run ${runId}: ${link}`);
    expect(audited.stdout).toContain(link);
  }, 60_000);
});
