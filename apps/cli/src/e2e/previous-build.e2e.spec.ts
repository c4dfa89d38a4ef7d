import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { REPO_ROOT, runCli } from '@stagecraft/testing';

/**
 * A store written by an earlier build (`fixtures/previous-build`: four chats, one per mode × reasoning,
 * and a workflow with its agents) must read, replay and verify the same with this one, and this build's
 * chats must produce the event types that build produced. Internal reshaping may change code, not what
 * was stored nor what a client sees.
 */
const FIXTURE = join(REPO_ROOT, 'apps', 'cli', 'src', 'e2e', 'fixtures', 'previous-build');
const expected = JSON.parse(readFileSync(join(FIXTURE, 'expected.json'), 'utf8')) as {
  chatEventTypes: Record<string, string[]>;
  runs: { runId: string; tokens?: Record<string, Usage> }[];
};
const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };

type Usage = { promptTokens: number; completionTokens: number; totalTokens: number };
/**
 * That build filed the reviewer's tokens under `qa`; this one files them under the model its calls name
 * (the one model of these runs), so the figures are the same sums under one name.
 */
function reviewerTokensUnderTheirModel(run: { runId: string; tokens?: Record<string, Usage> }) {
  const { qa, ...byModel } = run.tokens ?? {};
  const models = Object.keys(byModel);
  if (!qa || models.length !== 1) return run;
  const own = byModel[models[0]];
  const sum = (key: keyof Usage) => own[key] + qa[key];
  return {
    ...run,
    tokens: {
      [models[0]]: { promptTokens: sum('promptTokens'), completionTokens: sum('completionTokens'), totalTokens: sum('totalTokens') },
    },
  };
}

describe('a store written by the previous build', () => {
  let dir: string;
  let store: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-previous-'));
    writeFileSync(join(dir, 'events.db'), gunzipSync(readFileSync(join(FIXTURE, 'events.db.gz'))));
    store = `sqlite:${join(dir, 'events.db')}`;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists the same runs with the same figures', async () => {
    const { code, stdout } = await runCli(['runs', 'list', '--json', '--store', store], env);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).runs).toEqual(expected.runs.map(reviewerTokensUnderTheirModel));
  });

  it('rebuilds every read model to the checkpoints that build saved, over an intact hash chain', async () => {
    const { code, stdout } = await runCli(['replay', '--verify', '--store', store], env, 60_000);
    expect(code).toBe(0);
    const rows = stdout.split('\n').filter((l) => /^(conversation|memory)-/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(6);
    // The runs view was renamed since that build (the reviewer's tokens moved to their model): it has no checkpoint there yet.
    for (const row of rows) expect(row).toMatch(row.startsWith('memory-runs-v2 ') ? /\sno checkpoint yet$/ : /\ssame$/);
    expect(stdout).toContain('verified: intact');
  });

  it('decides every stored run again to the same events, and every invariant holds', async () => {
    for (const { runId } of expected.runs) {
      const { code, stdout } = await runCli(['runs', 'replay', runId, '--store', store], env);
      expect({ runId, code }).toEqual({ runId, code: 0 });
      expect(stdout).toContain('all identical');
    }
    const audit = await runCli(['audit', '--store', store], env, 60_000);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain(`audited ${expected.runs.length} run(s): every invariant holds`);
    // Seventeen CLI processes one after another: generous for a loaded machine.
  }, 240_000);
});

describe('chat --json, this build against the previous one', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-sequences-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['chat', false],
    ['chat', true],
    ['agent', false],
    ['agent', true],
  ])('prints the same event types in %s mode, reasoning %s', async (mode, reasoning) => {
    const name = `${mode}${reasoning ? '--reasoning' : ''}`;
    const project = join(dir, name);
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const args = ['chat', `Summarise this project in NOTES-${name}.md`, '--root', project, '--mode', mode, '--json'];
    const { code, stdout } = await runCli(
      [...args, ...(reasoning ? ['--reasoning'] : []), '--store', `sqlite:${join(dir, `${name}.db`)}`],
      env,
      60_000,
    );
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type?: string });
    expect(lines.slice(0, -1).map((l) => l.type)).toEqual(expected.chatEventTypes[name]);
  });
});
