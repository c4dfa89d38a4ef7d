import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { QAReport, Stage, UserMode } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { ReasoningFormat, containsReasoning, parseReasoning, stripReasoning } from '@stagecraft/reasoning';
import { executeTool, toolSpecs } from '@stagecraft/tools';
import { ScriptedModelServer, demoScript, startScriptedModelServer } from '../index';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type Call = { name: string; args: Record<string, unknown> };

const promptsRoot = join(__dirname, '../../../../prompts');
const userInput = 'Summarise this project for me in a notes file.';

/** Just enough of the engine: the stage's policy picks prompts and tools, tool calls run for real. */
class Engine {
  readonly replies: { stage: Stage; content: string; calls: Call[] }[] = [];
  constructor(
    private readonly client: OpenAI,
    private readonly root: string,
    private readonly mode: UserMode,
    private readonly reasoning: boolean,
    private readonly runId: string,
  ) {}

  async system(stage: Stage): Promise<string> {
    const policy = decideStagePolicy({ userMode: this.mode, reasoningEnabled: this.reasoning, stage, delegation: { depth: 0, chain: [] } });
    const bodies = await Promise.all(policy.prompts.map((id) => readFile(join(promptsRoot, `${id}.md`), 'utf8')));
    return bodies
      .join('\n\n')
      .replaceAll('{{user_input}}', userInput)
      .replace(/\{\{\w+\}\}/g, '(none)');
  }

  /** One stage: asks until the model stops calling tools; `act` continues as `tool_followup`. */
  async stage(stage: Stage, history: Message[]): Promise<{ content: string; messages: Message[] }> {
    const policy = decideStagePolicy({ userMode: this.mode, reasoningEnabled: this.reasoning, stage, delegation: { depth: 0, chain: [] } });
    const tools = toolSpecs(policy.tools).map((t) => ({
      type: 'function' as const,
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    const messages: Message[] = [{ role: 'system', content: await this.system(stage) }, ...history];
    let current = stage;
    for (let step = 0; step < 10; step += 1) {
      const completion = await this.client.chat.completions.create(
        { model: 'demo', messages, ...(tools.length > 0 ? { tools } : {}) },
        { headers: { 'x-stagecraft-stage': current, 'x-stagecraft-run-id': this.runId, 'x-stagecraft-conversation-id': 'conv-1' } },
      );
      const message = completion.choices[0].message;
      const toolCalls = (message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [c] : []));
      const content = message.content ?? '';
      this.replies.push({
        stage: current,
        content,
        calls: toolCalls.map((c) => ({ name: c.function.name, args: JSON.parse(c.function.arguments) })),
      });
      if (toolCalls.length === 0) return { content, messages };
      // Later requests carry the visible text only, never the reasoning block.
      messages.push({ role: 'assistant', content: stripReasoning(content), tool_calls: toolCalls });
      for (const call of toolCalls) {
        const outcome = await executeTool(call.function.name as never, JSON.parse(call.function.arguments), {
          root: this.root,
          allowedCommands: [],
          progress: () => undefined,
        });
        messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.output });
      }
      if (current === 'act') current = 'tool_followup';
    }
    throw new Error('the tool loop did not end');
  }

  /** warmup (when reasoning is on) → act/tool_followup → delivery_check → qa_review. */
  async run(): Promise<{ answer: string; delivery: string; qa: string }> {
    const user: Message = { role: 'user', content: userInput };
    if (this.reasoning) await this.stage('warmup', [user]);
    const act = await this.stage('act', [user]);
    const answer = stripReasoning(act.content);
    const delivery = await this.stage('delivery_check', [user, { role: 'assistant', content: answer }]);
    const qa = await this.stage('qa_review', [{ role: 'user', content: `${userInput}\n\nThe answer to review:\n\n${answer}` }]);
    return { answer, delivery: delivery.content, qa: qa.content };
  }
}

describe('demoScript driving a whole run over HTTP', () => {
  let server: ScriptedModelServer;
  let client: OpenAI;
  let root: string;

  beforeEach(async () => {
    server = await startScriptedModelServer({ script: demoScript() });
    client = new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
    root = await mkdtemp(join(tmpdir(), 'stagecraft-demo-'));
    await writeFile(join(root, 'README.md'), '# Tiny Calc\n\nA calculator library.\n\n## Usage\n\nCall `add(1, 2)`.\n');
    await writeFile(join(root, 'package.json'), '{ "name": "tiny-calc" }\n');
    await writeFile(join(root, 'index.js'), 'exports.add = (a, b) => a + b;\n');
  });
  afterEach(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  const expectParses = (content: string, format: ReasoningFormat) => {
    const parsed = parseReasoning(content, format);
    if (!parsed.ok) throw new Error(`${format} reasoning did not parse (${parsed.problem}: ${parsed.detail}) in:\n${content}`);
    return parsed;
  };

  it('plans, lists, reads, writes, answers DONE, passes the gate and gets a QA report, with valid reasoning at every step', async () => {
    const engine = new Engine(client, root, 'agent', true, 'run-1');
    const result = await engine.run();

    expect(engine.replies.map((r) => [r.stage, r.calls.map((c) => c.name).join(',')])).toEqual([
      ['warmup', ''],
      ['act', 'list_dir'],
      ['tool_followup', 'read_file'],
      ['tool_followup', 'write_file'],
      ['tool_followup', ''],
      ['delivery_check', ''],
      ['qa_review', 'read_file'],
      ['qa_review', ''],
    ]);
    expect(server.requests.map((r) => r.stage)).toEqual(engine.replies.map((r) => r.stage));
    expect(engine.replies[2].calls[0].args).toEqual({ path: 'README.md' });
    expect(engine.replies[3].calls[0].args['path']).toBe('STAGECRAFT_NOTES.md');

    const warmup = expectParses(engine.replies[0].content, 'macro');
    expect(warmup.outcome.delivery_state).toBe('NEEDS_WORK');
    expect(warmup.visible.split('\n')).toHaveLength(1);
    for (const reply of engine.replies.slice(1)) expectParses(reply.content, 'micro');
    expect(expectParses(engine.replies[3].content, 'micro').outcome.delivery_state).toBe('NEEDS_WORK');
    expect(expectParses(engine.replies[4].content, 'micro').outcome.delivery_state).toBe('DONE');

    const notes = await readFile(join(root, 'STAGECRAFT_NOTES.md'), 'utf8');
    expect(notes).toContain('Title: Tiny Calc');
    expect(notes).toContain('> A calculator library.');
    expect(notes).toContain(`Request: ${userInput}`);
    expect(result.answer).toBe(
      `I listed the project root (3 entries), read README.md ("Tiny Calc") and wrote STAGECRAFT_NOTES.md summarising it (${notes.length} bytes, created). Nothing else in the project was changed.`,
    );

    const delivery = expectParses(result.delivery, 'micro');
    expect(delivery.outcome.delivery_state).toBe('DONE');
    expect(delivery.visible).toMatch(/^Delivery: DONE\n\n/);

    const qa = expectParses(result.qa, 'micro');
    const report = QAReport.parse(JSON.parse(qa.visible));
    expect(report.verdict).toBe('pass');
    expect(report.findings.map((f) => f.file)).toEqual(['STAGECRAFT_NOTES.md']);
  });

  it('emits no reasoning at all when the request carries no reasoning instruction', async () => {
    const engine = new Engine(client, root, 'agent', false, 'run-2');
    const result = await engine.run();

    expect(engine.replies.map((r) => [r.stage, r.calls.map((c) => c.name).join(',')])).toEqual([
      ['act', 'list_dir'],
      ['tool_followup', 'read_file'],
      ['tool_followup', 'write_file'],
      ['tool_followup', ''],
      ['delivery_check', ''],
      ['qa_review', 'read_file'],
      ['qa_review', ''],
    ]);
    for (const reply of engine.replies) expect(containsReasoning(reply.content)).toBe(false);
    expect(result.delivery).toMatch(/^Delivery: DONE\n\nI listed the project root/);
    expect(QAReport.parse(JSON.parse(result.qa)).verdict).toBe('pass');
    expect(server.requests.every((r) => !JSON.stringify(r.body).includes('<ide_reasoning>'))).toBe(true);
  });

  it('answers a chat-mode run without tools, in micro format throughout, warmup included', async () => {
    const engine = new Engine(client, root, 'chat', true, 'run-3');
    const result = await engine.run();

    expect(engine.replies.map((r) => [r.stage, r.calls.length])).toEqual([
      ['warmup', 0],
      ['act', 0],
      ['delivery_check', 0],
      ['qa_review', 0],
    ]);
    for (const reply of engine.replies) expectParses(reply.content, 'micro');
    expect(result.answer).toMatch(/I have not opened or run anything/);
    expect(QAReport.parse(JSON.parse(stripReasoning(result.qa))).verdict).toBe('pass');
  });

  it('reports concerns when the notes it is told about are not there', async () => {
    const engine = new Engine(client, root, 'agent', true, 'run-4');
    const qa = await engine.stage('qa_review', [{ role: 'user', content: 'The answer to review: I wrote STAGECRAFT_NOTES.md.' }]);
    const report = QAReport.parse(JSON.parse(stripReasoning(qa.content)));
    expect(report).toMatchObject({ verdict: 'concerns', findings: [{ severity: 'major', file: 'STAGECRAFT_NOTES.md' }] });
    expect(expectParses(qa.content, 'micro').outcome.delivery_state).toBe('NEEDS_WORK');
  });

  it('answers a repeated request identically, and another run with other tool call ids', async () => {
    const ask = (runId: string) =>
      client.chat.completions.create(
        {
          model: 'demo',
          messages: [{ role: 'user', content: userInput }],
          tools: toolSpecs(['list_dir']).map((t) => ({ type: 'function' as const, function: t })),
        },
        { headers: { 'x-stagecraft-stage': 'act', 'x-stagecraft-run-id': runId } },
      );
    const [first, again, other] = [await ask('run-a'), await ask('run-a'), await ask('run-b')];
    const id = (c: OpenAI.Chat.Completions.ChatCompletion) => c.choices[0].message.tool_calls?.[0].id;
    expect(id(again)).toBe(id(first));
    expect(id(other)).not.toBe(id(first));
    expect(id(first)).toMatch(/^call_[0-9a-f]{24}$/);
  });
});
