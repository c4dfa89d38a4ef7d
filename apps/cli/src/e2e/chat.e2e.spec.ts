import { createSqliteEventStore } from '@stagecraft/event-store';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from '@stagecraft/testing';

/** The README's main command, on a copy of the sample project, with no model key: the scripted model runs it. */
describe('stagecraft chat, embedded, without an API key', () => {
  let dir: string;
  let project: string;
  const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-chat-'));
    project = join(dir, 'sample-project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs a whole agent conversation live and says that the model is scripted', async () => {
    const store = `sqlite:${join(dir, 'events.db')}`;
    const { code, stdout, stderr } = await runCli(
      ['chat', 'Summarise this project in STAGECRAFT_NOTES.md', '--root', project, '--mode', 'agent', '--reasoning', '--store', store],
      env,
      60_000,
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.split('\n')[0]).toContain('scripted');
    for (const stage of ['warmup', 'act', 'delivery_check', 'qa_review']) expect(stdout).toContain(`▶ ${stage}`);
    expect(stdout).toContain('delivery: DONE');
    expect(stdout).toMatch(/✔ completed \(DONE\)/);
    expect(existsSync(join(project, 'STAGECRAFT_NOTES.md'))).toBe(true);
  });

  it('--json prints one event per line, then the result; runs show prints the timeline', async () => {
    const store = `sqlite:${join(dir, 'json.db')}`;
    const { code, stdout } = await runCli(
      ['chat', 'What does this project do?', '--root', project, '--mode', 'chat', '--json', '--store', store],
      env,
      60_000,
    );
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const result = lines.at(-1);
    expect(Object.keys(result).sort()).toEqual([
      'answer',
      'changedFiles',
      'conversationId',
      'cost',
      'deliveryState',
      'qaReport',
      'runId',
      'tokens',
      'usage',
    ]);
    expect(result.changedFiles).toEqual([]);
    expect(result.usage).toEqual({
      inputTokens: result.tokens.promptTokens,
      outputTokens: result.tokens.completionTokens,
      cachedTokens: result.tokens.cachedPromptTokens,
      cost: result.cost,
    });
    // The built-in scripted model has no price: its tokens are counted, not priced.
    expect(result.cost).toEqual({ amount: 0, currency: 'USD', priced: false });
    expect(result.tokens.promptTokens).toBeGreaterThan(0);
    expect(lines[0]).toMatchObject({ type: 'RunStarted', data: { userMode: 'chat', reasoningEnabled: false } });
    expect(lines.at(-2).type).toBe('RunCompleted');
    const shown = await runCli(['runs', 'show', result.runId, '--store', store], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('RunCompleted');
    // One timeline row per event, then the final answer.
    expect(shown.stdout.split('\n').filter((l) => /^\s+\+\d+\.\d{3}s /.test(l))).toHaveLength(lines.length - 1);
    expect(shown.stdout.trim().endsWith(`answer:\n${result.answer}`)).toBe(true);
  });

  it('--max-tool-rounds and --max-delivery-checks bound the run, and RunStarted records them', async () => {
    const store = `sqlite:${join(dir, 'limits.db')}`;
    const { code, stdout } = await runCli(
      [
        'chat',
        'Summarise this project in LIMITS.md',
        '--root',
        project,
        '--json',
        '--max-tool-rounds',
        '1',
        '--max-delivery-checks',
        '2',
        '--store',
        store,
      ],
      env,
      60_000,
    );
    // The bound leaves the run without an answer: never delivered DONE, so the exit says it needs work (docs/decisions/0056).
    expect(code).toBe(1);
    const events = stdout
      .trim()
      .split('\n')
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    expect(events[0]).toMatchObject({ type: 'RunStarted', data: { limits: { maxToolIterations: 1, maxDeliveryChecks: 2 } } });
    // The sample run reads, then writes: two tool rounds, so a bound of one sends it to the gate after the first follow-up.
    expect(events.filter((e) => e.type === 'LimitReached').map((e) => e.data)).toContainEqual(
      expect.objectContaining({ limit: 'maxToolIterations', value: 1, stage: 'tool_followup', iteration: 1 }),
    );
    expect(events.at(-1)).toMatchObject({
      type: 'RunCompleted',
      data: { deliveryState: 'NEEDS_WORK', cause: expect.stringMatching(/no answer was given/) },
    });
  });

  it.each([
    ['--max-tool-rounds', '0', 'from 1 to 200'],
    ['--max-tool-rounds', '201', 'from 1 to 200'],
    ['--max-delivery-checks', 'three', 'from 1 to 20'],
  ])('refuses %s %s as a usage error, storing nothing', async (flag, value, range) => {
    const store = join(dir, `refused-${value}.db`);
    const { code, stderr } = await runCli(['chat', 'hi', '--root', project, flag, value, '--store', `sqlite:${store}`], env);
    expect(code).toBe(2);
    expect(stderr).toContain(range);
    expect(existsSync(store)).toBe(false);
  });

  it('rejects a bad mode before starting anything', async () => {
    const { code, stderr } = await runCli(['chat', 'hi', '--root', project, '--mode', 'boss'], env);
    expect(code).not.toBe(0);
    expect(stderr).toContain('agent or chat');
  });
});

describe('stagecraft replay', () => {
  it('rebuilds the active-runs read model from the log and saves its checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stagecraft-replay-'));
    try {
      const project = join(dir, 'p');
      cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
      const store = `sqlite:${join(dir, 'events.db')}`;
      const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
      expect((await runCli(['chat', 'hello', '--root', project, '--mode', 'chat', '--store', store], env, 60_000)).code).toBe(0);
      const { code, stdout } = await runCli(['replay', '--store', store], env);
      expect(code).toBe(0);
      const row = stdout.split('\n').find((l) => l.startsWith('conversation-active-runs'));
      expect(row).toBeDefined();
      // One finished run: the read model has no active run, and the checkpoint sits past position zero.
      const [, position, size] = row!.split(/\s{2,}/);
      expect(Number(position)).toBeGreaterThan(0);
      expect(size).toBe(`${JSON.stringify({ active: [] }).length} bytes`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('stagecraft chat --conversation', () => {
  it('continues a conversation: the second run starts from the first turn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stagecraft-turns-'));
    try {
      const project = join(dir, 'p');
      cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
      const store = `sqlite:${join(dir, 'events.db')}`;
      const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
      const first = await runCli(
        ['chat', 'What does convert.js do?', '--root', project, '--mode', 'chat', '--json', '--store', store],
        env,
        60_000,
      );
      const { conversationId, answer } = JSON.parse(first.stdout.trim().split('\n').at(-1)!);
      const second = await runCli(
        ['chat', 'And stats.js?', '--root', project, '--mode', 'chat', '--json', '--conversation', conversationId, '--store', store],
        env,
        60_000,
      );
      const lines = second.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.at(-1).conversationId).toBe(conversationId);
      // The second run refers to the first turn by its place in the conversation stream instead of copying it.
      expect(lines[0]).toMatchObject({ type: 'RunStarted', data: { conversationId, historyThrough: 1 } });
      expect(lines.find((e) => e.type === 'MessageAppended').data).toMatchObject({ role: 'user', content: 'And stats.js?' });
      const log = createSqliteEventStore({ path: join(dir, 'events.db') });
      const turns = (await log.readStream(`conversation-${conversationId}`)).map((e) => [
        (e.data as { role: string }).role,
        (e.data as { content: string }).content,
      ]);
      await log.close();
      expect(turns.slice(0, 3)).toEqual([
        ['user', 'What does convert.js do?'],
        ['assistant', answer],
        ['user', 'And stats.js?'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
