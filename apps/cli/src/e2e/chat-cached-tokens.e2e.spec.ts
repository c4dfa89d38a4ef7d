import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunsListReply } from '@stagecraft/contracts';
import { RecordedRequest, ScriptedModelServer, demoScript, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT, runCli } from '@stagecraft/testing';

const MODEL = 'cached-model';
/** Every request: 1000 prompt tokens, 600 of them from the provider's cache, and 10 completion tokens. */
const USAGE = { prompt_tokens: 1000, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 600 } };
/** Per call: 400 fresh × $2 + 600 cached × $0.2 + 10 × $8 per million = $0.001. */
const PRICES = { [MODEL]: { promptPerMTok: 2, cachedPromptPerMTok: 0.2, completionPerMTok: 8 } };

/**
 * An endpoint that reports cached prompt tokens: the run records them, the runs view sums and prices them
 * (the reviewer's calls under the model that answered them, not an unpriced `qa`), and `chat` closes with them.
 */
describe('cached prompt tokens, from the endpoint to the cost', () => {
  let dir: string;
  let project: string;
  let model: ScriptedModelServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-cached-'));
    project = join(dir, 'sample-project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const demo = demoScript();
    const script = typeof demo === 'function' ? demo : () => demo[0];
    model = await startScriptedModelServer({
      script: async (request: RecordedRequest) => ({ ...(await script(request)), usage: USAGE }),
    });
    env = {
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: model.url,
      STAGECRAFT_MODEL: MODEL,
      STAGECRAFT_PRICES: JSON.stringify(PRICES),
      NATS_URL: '',
    };
  });
  afterAll(async () => {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('chat --json and runs list --json show prompt, cached and completion tokens and the cost at the cached price', async () => {
    const store = `sqlite:${join(dir, 'events.db')}`;
    const chat = await runCli(
      ['chat', 'What does this project do?', '--root', project, '--mode', 'chat', '--json', '--store', store],
      env,
      60_000,
    );
    expect(chat.code).toBe(0);
    const lines = chat.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const calls = lines.filter((l) => l['type'] === 'ModelResponded');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls)
      expect(call).toMatchObject({ data: { usage: { promptTokens: 1000, cachedPromptTokens: 600, completionTokens: 10 } } });
    const reviewed = lines.find((l) => l['type'] === 'QAReportIssued') as { data: { modelCalls: unknown[] } } | undefined;
    const qaCalls = reviewed?.data.modelCalls.length ?? 0;
    expect(qaCalls).toBeGreaterThan(0);

    const n = calls.length + qaCalls;
    const result = lines.at(-1);
    expect(result).toMatchObject({
      tokens: { promptTokens: 1000 * n, cachedPromptTokens: 600 * n, completionTokens: 10 * n },
      cost: { currency: 'USD', priced: true },
    });
    expect((result?.['cost'] as { amount: number }).amount).toBeCloseTo(0.001 * n, 9);

    const listed = await runCli(['runs', 'list', '--json', '--store', store], env);
    expect(listed.code).toBe(0);
    const [run] = (JSON.parse(listed.stdout) as RunsListReply).runs;
    expect(run.runId).toBe(result?.['runId']);
    expect(run.tokens).toEqual({
      [MODEL]: { promptTokens: 1000 * n, cachedPromptTokens: 600 * n, completionTokens: 10 * n, totalTokens: 1010 * n },
    });
    expect(run.cost).toMatchObject({ currency: 'USD', priced: true });
    expect(run.cost.amount).toBeCloseTo(0.001 * n, 9);

    const table = await runCli(['runs', 'list', '--store', store], env);
    expect(table.stdout).toContain(`${1000 * n}/${600 * n}/${10 * n}`);
  }, 90_000);

  it('chat closes with the tokens and the cost', async () => {
    const store = `sqlite:${join(dir, 'closing.db')}`;
    const chat = await runCli(['chat', 'What does this project do?', '--root', project, '--mode', 'chat', '--store', store], env, 60_000);
    expect(chat.code).toBe(0);
    const closing = chat.stdout.trim().split('\n').at(-1) ?? '';
    const [, prompt, cached, completion, cost] =
      /^tokens: (\d+) prompt \((\d+) cached\), (\d+) completion · cost \$(\d+\.\d{4})$/.exec(closing) ?? [];
    const n = Number(completion) / 10;
    expect(n).toBeGreaterThan(0);
    expect([Number(prompt), Number(cached), Number(cost)]).toEqual([1000 * n, 600 * n, Number((0.001 * n).toFixed(4))]);
  }, 90_000);
});
