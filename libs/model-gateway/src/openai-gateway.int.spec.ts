import pino from 'pino';
import type { ChatMessage, ModelCallMeta, ToolSpec } from '@stagecraft/contracts';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { createOpenAiGateway } from './openai-gateway';
import type { OpenAiGatewayOptions } from './openai-gateway';

let server: ScriptedModelServer;
let logs: Record<string, unknown>[];

const logger = () => pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) });
const gateway = (overrides: Partial<OpenAiGatewayOptions> = {}) =>
  createOpenAiGateway({ baseURL: server.url, apiKey: 'test-key', model: 'scripted-model', logger: logger(), ...overrides });

const meta: ModelCallMeta = {
  requestId: 'req-1',
  runId: 'run-1',
  conversationId: 'conv-1',
  stage: 'act',
  userMode: 'agent',
  reasoningEnabled: true,
};
const messages: ChatMessage[] = [
  { role: 'system', content: 'You are the agent.' },
  { role: 'user', content: 'Read the README.' },
];
const readFile: ToolSpec = {
  name: 'read_file',
  description: 'Read a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => ({ code: 'NONE', message: '' }),
    (e: { code: string; message: string }) => e,
  );

beforeEach(async () => {
  logs = [];
  server = await startScriptedModelServer();
});
afterEach(() => server.close());

describe('OpenAI gateway against the scripted server', () => {
  it('streams text, handing each piece to onDelta in order', async () => {
    const content = 'The README says to run npm test before every commit.';
    server.setScript([{ content, usage: { prompt_tokens: 12, completion_tokens: 9 } }]);
    const deltas: string[] = [];
    const response = await gateway().complete(meta, messages, [readFile], { onDelta: (text) => deltas.push(text) });
    expect(response).toMatchObject({
      content,
      toolCalls: [],
      finishReason: 'stop',
      model: 'scripted-model',
      usage: { promptTokens: 12, completionTokens: 9, totalTokens: 21 },
    });
    expect(response.latencyMs).toBeGreaterThan(0);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(content);
    const body = server.requests[0].body;
    expect(body).toMatchObject({
      model: 'scripted-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'system' }, { role: 'user' }],
    });
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: readFile.parameters } },
    ]);
  });

  it('reassembles streamed tool calls into parseable arguments', async () => {
    server.setScript([
      {
        toolCalls: [
          { id: 'call_a', name: 'list_dir', arguments: { path: '.' } },
          { name: 'read_file', arguments: { path: 'docs/README.md', startLine: 3 } },
        ],
      },
    ]);
    const response = await gateway().complete(meta, messages, [readFile]);
    expect(response.finishReason).toBe('tool_calls');
    expect(response.content).toBe('');
    expect(response.toolCalls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.arguments) }))).toEqual([
      { id: 'call_a', name: 'list_dir', args: { path: '.' } },
      { id: 'call_0_1', name: 'read_file', args: { path: 'docs/README.md', startLine: 3 } },
    ]);
  });

  it('sends earlier tool calls and their results back in the OpenAI shape', async () => {
    server.setScript([{ content: 'ok' }]);
    const call = { id: 'call_a', name: 'read_file', arguments: '{"path":"a.ts"}' };
    await gateway().complete(
      meta,
      [...messages, { role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', content: 'export {};', toolCallId: 'call_a' }],
      [],
    );
    const body = server.requests[0].body;
    expect(body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
      },
      { role: 'tool', content: 'export {};', tool_call_id: 'call_a' },
    ]);
    expect(body.tools).toBeUndefined();
  });

  it('puts the run, conversation and stage headers on every request, retries included', async () => {
    server.setScript([{ status: 503 }, { content: 'one' }, { content: 'two' }]);
    const g = gateway();
    await g.complete(meta, messages, []);
    await g.complete({ ...meta, requestId: 'req-2', stage: 'qa_review' }, messages, []);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((r) => [r.headers['x-stagecraft-run-id'], r.headers['x-stagecraft-conversation-id'], r.stage])).toEqual([
      ['run-1', 'conv-1', 'act'],
      ['run-1', 'conv-1', 'act'],
      ['run-1', 'conv-1', 'qa_review'],
    ]);
  });

  it('lets the client retry a 500 and a 429 until the answer comes', async () => {
    server.setScript([{ status: 500 }, { content: 'after a 500' }, { status: 429 }, { status: 429 }, { content: 'after two 429s' }]);
    const g = gateway();
    expect((await g.complete(meta, messages, [])).content).toBe('after a 500');
    expect((await g.complete(meta, messages, [])).content).toBe('after two 429s');
    expect(server.requests).toHaveLength(5);
  });

  it('gives up on a permanent 500 after the retries with UNAVAILABLE naming the status', async () => {
    server.setScript(() => ({ status: 500, content: 'upstream exploded' }));
    const error = await failure(gateway({ maxRetries: 2 }).complete(meta, messages, []));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('HTTP 500');
    expect(server.requests).toHaveLength(3);
    expect(logs.find((l) => l.msg === 'model request failed')).toMatchObject({ code: 'UNAVAILABLE', runId: 'run-1', stage: 'act' });
  });

  it('does not retry a bad request, and reports it as INTERNAL', async () => {
    server.setScript([{ status: 400, content: 'tools[0] is invalid' }]);
    const error = await failure(gateway().complete(meta, messages, []));
    expect(error).toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('HTTP 400') });
    expect(server.requests).toHaveLength(1);
  });

  it('times out a slow answer with TIMEOUT, and honours the caller abort signal', async () => {
    server.setScript(() => ({ content: 'late', delayMs: 2_000 }));
    expect(await failure(gateway({ timeoutMs: 100, maxRetries: 0 }).complete(meta, messages, []))).toMatchObject({ code: 'TIMEOUT' });
    const aborted = gateway().complete(meta, messages, [], { signal: AbortSignal.timeout(100) });
    expect(await failure(aborted)).toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('aborted') });
  });

  it('reports an unreachable endpoint as UNAVAILABLE', async () => {
    const url = server.url;
    await server.close();
    const error = await failure(
      createOpenAiGateway({ baseURL: url, apiKey: 'k', model: 'm', maxRetries: 0, logger: logger() }).complete(meta, messages, []),
    );
    expect(error.code).toBe('UNAVAILABLE');
    server = await startScriptedModelServer();
  });

  it('fails fast without a key against the default endpoint, but needs none for a local one', async () => {
    const remote = createOpenAiGateway({ baseURL: 'https://api.openai.com/v1', apiKey: null, model: 'm', logger: logger() });
    expect(await failure(remote.complete(meta, messages, []))).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('OPENAI_API_KEY'),
    });
    server.setScript([{ content: 'local' }]);
    expect((await gateway({ apiKey: null }).complete(meta, messages, [])).content).toBe('local');
  });

  it('works without streaming too', async () => {
    server.setScript([{ content: 'whole', toolCalls: [{ id: 'call_x', name: 'read_file', arguments: { path: 'a' } }] }]);
    const deltas: string[] = [];
    const response = await gateway({ stream: false }).complete(meta, messages, [readFile], { onDelta: (d) => deltas.push(d) });
    expect(response).toMatchObject({
      content: 'whole',
      toolCalls: [{ id: 'call_x', name: 'read_file', arguments: '{"path":"a"}' }],
      finishReason: 'tool_calls',
    });
    expect(deltas).toEqual(['whole']);
    expect(server.requests[0].body.stream).toBe(false);
  });

  it('logs the seed fields at request and completion', async () => {
    server.setScript([{ content: 'fine' }]);
    await gateway().complete(meta, messages, [readFile]);
    const fields = {
      requestId: 'req-1',
      conversationId: 'conv-1',
      runId: 'run-1',
      userMode: 'agent',
      stage: 'act',
      toolCount: 1,
      reasoningEnabled: true,
      model: 'scripted-model',
    };
    expect(logs.map((l) => l.msg)).toEqual(['model request', 'model response']);
    expect(logs[0]).toMatchObject({ ...fields, messageCount: 2 });
    expect(logs[1]).toMatchObject({
      ...fields,
      finishReason: 'stop',
      latencyMs: expect.any(Number),
      usage: { promptTokens: expect.any(Number) },
    });
  });

  it('asks each stage its own model where STAGECRAFT_MODEL_<STAGE> names one, the default elsewhere', async () => {
    server.setScript([{ content: 'warm' }, { content: 'acted' }]);
    const perStage = gateway({ model: 'big-model', stageModels: { warmup: 'small-model' } });
    await perStage.complete({ ...meta, stage: 'warmup' }, messages, []);
    await perStage.complete({ ...meta, stage: 'act' }, messages, []);
    expect(server.requests.map((r) => [r.stage, r.body.model])).toEqual([
      ['warmup', 'small-model'],
      ['act', 'big-model'],
    ]);
    expect([perStage.modelFor?.('warmup'), perStage.modelFor?.('qa_review'), perStage.model]).toEqual([
      'small-model',
      'big-model',
      'big-model',
    ]);
  });

  it('classes a 404 for an unknown model as CONFIGURATION, naming the model, the base URL and the settings to check', async () => {
    const strict = await startScriptedModelServer({ models: ['known-model'], script: [{ content: 'never sent' }] });
    try {
      const error = await failure(
        createOpenAiGateway({ baseURL: strict.url, apiKey: 'k', model: 'no-such-model', logger: logger(), maxRetries: 2 }).complete(
          meta,
          messages,
          [],
        ),
      );
      expect(error).toMatchObject({ code: 'CONFIGURATION' });
      expect(error.message).toContain('no-such-model');
      expect(error.message).toContain(strict.url);
      expect(error.message).toContain('check STAGECRAFT_MODEL and OPENAI_BASE_URL');
      // Not retried: a missing model does not appear by asking again.
      expect(strict.requests).toHaveLength(1);
    } finally {
      await strict.close();
    }
  });
});
