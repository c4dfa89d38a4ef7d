import OpenAI from 'openai';
import { ScriptedModelServer, startScriptedModelServer } from './index';

describe('scripted model server through the openai client', () => {
  let server: ScriptedModelServer;
  let client: OpenAI;

  beforeEach(async () => {
    server = await startScriptedModelServer();
    client = new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 2 });
  });
  afterEach(() => server.close());

  const ask = (extra: Partial<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming> = {}) =>
    client.chat.completions.create({ model: 'test-model', messages: [{ role: 'user', content: 'hello' }], ...extra });

  async function askStreaming(includeUsage = true) {
    const stream = await client.chat.completions.create({
      model: 'test-model',
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      stream_options: { include_usage: includeUsage },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return chunks;
  }

  /** What a streaming consumer rebuilds: the text, and each tool call by its index. */
  function reassemble(chunks: OpenAI.Chat.Completions.ChatCompletionChunk[]) {
    let content = '';
    const calls: { id: string; name: string; arguments: string }[] = [];
    for (const delta of chunks.flatMap((c) => c.choices.map((choice) => choice.delta))) {
      content += delta.content ?? '';
      for (const call of delta.tool_calls ?? []) {
        calls[call.index] ??= { id: '', name: '', arguments: '' };
        if (call.id) calls[call.index].id = call.id;
        if (call.function?.name) calls[call.index].name = call.function.name;
        calls[call.index].arguments += call.function?.arguments ?? '';
      }
    }
    return { content, calls };
  }

  it('answers a non-streaming request with the scripted text, echoing the model', async () => {
    server.setScript([{ content: 'Hi there.', usage: { prompt_tokens: 7, completion_tokens: 3 } }]);
    const completion = await ask();
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toBe('chatcmpl-scripted-0');
    expect(completion.model).toBe('test-model');
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: 'Hi there.' });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/chat/completions',
      body: { model: 'test-model', messages: [{ role: 'user', content: 'hello' }] },
    });
  });

  it('gives identical replies to identical conversations on fresh servers (no wall-clock fields)', async () => {
    server.setScript([{ content: 'same' }]);
    const first = await ask();
    const again = await startScriptedModelServer({ script: [{ content: 'same' }] });
    try {
      const second = await new OpenAI({ baseURL: again.url, apiKey: 'test' }).chat.completions.create({
        model: 'test-model',
        messages: [{ role: 'user', content: 'hello' }],
      });
      expect(second).toEqual(first);
    } finally {
      await again.close();
    }
  });

  it('streams text in several deltas after a role delta, then the finish reason and usage', async () => {
    const text = 'The quick brown fox jumps over the lazy dog — 🦊 twice.';
    server.setScript([{ content: text }]);
    const chunks = await askStreaming();
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const contentChunks = chunks.filter((c) => c.choices[0]?.delta.content);
    expect(contentChunks.length).toBeGreaterThan(1);
    expect(reassemble(chunks).content).toBe(text);
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish.map((c) => c.choices[0].finish_reason)).toEqual(['stop']);
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage?.total_tokens).toBe((last.usage?.prompt_tokens ?? 0) + (last.usage?.completion_tokens ?? 0));
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(['chatcmpl-scripted-0']));
  });

  it('leaves the usage chunk out unless the request asks for it', async () => {
    server.setScript([{ content: 'no usage' }]);
    const chunks = await askStreaming(false);
    expect(chunks.every((c) => c.usage === undefined || c.usage === null)).toBe(true);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
  });

  it('returns tool calls with JSON arguments without streaming', async () => {
    server.setScript([
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'README.md' } },
          { id: 'call_x', name: 'list_dir', arguments: '{"path":"."}' },
        ],
      },
    ]);
    const completion = await ask();
    const message = completion.choices[0].message;
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(message.content).toBeNull();
    const calls = (message.tool_calls ?? []).map((c) =>
      c.type === 'function' ? { id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) } : null,
    );
    expect(calls).toEqual([
      { id: 'call_0_0', name: 'read_file', args: { path: 'README.md' } },
      { id: 'call_x', name: 'list_dir', args: { path: '.' } },
    ]);
  });

  it('streams tool calls: id, type and name first, the arguments in pieces, alongside text', async () => {
    const args = { path: 'docs/notes.md', content: '# Notes\n\nSome "quoted" text.\n' };
    server.setScript([
      {
        content: 'Writing now.',
        toolCalls: [
          { name: 'list_dir', arguments: { path: '.' } },
          { id: 'w1', name: 'write_file', arguments: args },
        ],
      },
    ]);
    const chunks = await askStreaming();
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    const opening = toolDeltas.filter((d) => d.id !== undefined);
    expect(opening).toEqual([
      { index: 0, id: 'call_0_0', type: 'function', function: { name: 'list_dir', arguments: '' } },
      { index: 1, id: 'w1', type: 'function', function: { name: 'write_file', arguments: '' } },
    ]);
    expect(toolDeltas.filter((d) => d.index === 1 && d.id === undefined).length).toBeGreaterThan(1);
    const { content, calls } = reassemble(chunks);
    expect(content).toBe('Writing now.');
    expect(calls.map((c) => ({ ...c, arguments: JSON.parse(c.arguments) }))).toEqual([
      { id: 'call_0_0', name: 'list_dir', arguments: { path: '.' } },
      { id: 'w1', name: 'write_file', arguments: args },
    ]);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls');
  });

  it('lets the client retry a 500 and succeed, recording both attempts', async () => {
    server.setScript([{ status: 500 }, { content: 'recovered' }]);
    const completion = await ask();
    expect(completion.choices[0].message.content).toBe('recovered');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].body).toEqual(server.requests[0].body);
  });

  it('answers 429 with an OpenAI error body and a short retry-after-ms, and the client retries', async () => {
    server.setScript([{ status: 429 }, { status: 429 }, { content: 'finally' }]);
    const response = await ask().withResponse();
    expect(response.data.choices[0].message.content).toBe('finally');
    expect(server.requests).toHaveLength(3);

    server.setScript([{ status: 429, content: 'slow down' }]);
    const raw = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [] }),
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after-ms')).toBe('1');
    expect(await raw.json()).toEqual({ error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
  });

  it('gives up after maxRetries with the typed error of the last status', async () => {
    server.setScript([{ status: 503 }, { status: 503 }, { status: 503 }, { content: 'too late' }]);
    const error = await ask().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect(server.requests).toHaveLength(3);
  });

  it('records lower-cased headers from the client defaults and the request, and the stage', async () => {
    const tagged = new OpenAI({ baseURL: server.url, apiKey: 'test', defaultHeaders: { 'X-Stagecraft-Run-Id': 'run-1' } });
    server.setScript([{ content: 'a' }, { content: 'b' }]);
    await tagged.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'x' }] },
      { headers: { 'X-Stagecraft-Stage': 'delivery_check', 'X-Stagecraft-Conversation-Id': 'conv-1' } },
    );
    await tagged.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'y' }] });
    const [first, second] = server.requests;
    expect(first.headers).toMatchObject({
      'x-stagecraft-run-id': 'run-1',
      'x-stagecraft-conversation-id': 'conv-1',
      'x-stagecraft-stage': 'delivery_check',
      authorization: 'Bearer test',
    });
    expect(first.stage).toBe('delivery_check');
    expect(second.stage).toBeUndefined();
    expect(second.headers['x-stagecraft-run-id']).toBe('run-1');
  });

  it('names the request index when the script runs out, without the client retrying', async () => {
    server.setScript([{ content: 'only one' }]);
    await ask();
    const error = await ask().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as Error).message).toMatch(/no reply scripted for request 1 \(the script holds 1 reply\)/);
    expect(server.requests).toHaveLength(2);
  });

  it('calls a function script once per request with the recorded request', async () => {
    server.setScript((request) => ({
      content: `#${request.index} at ${request.stage ?? 'no stage'}: ${request.body.messages.length} messages`,
    }));
    const first = await ask();
    const second = await client.chat.completions.create(
      {
        model: 'm',
        messages: [
          { role: 'system', content: 's' },
          { role: 'user', content: 'u' },
        ],
      },
      { headers: { 'x-stagecraft-stage': 'act' } },
    );
    expect(first.choices[0].message.content).toBe('#0 at no stage: 1 messages');
    expect(second.choices[0].message.content).toBe('#1 at act: 2 messages');
  });

  it('waits delayMs before answering', async () => {
    server.setScript([{ content: 'late', delayMs: 150 }]);
    const started = performance.now();
    await ask();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('serves deterministic unit-length embeddings for a string or an array, in float and base64 form', async () => {
    const one = await client.embeddings.create({ model: 'e', input: 'alpha' });
    const again = await client.embeddings.create({ model: 'e', input: ['alpha', 'beta'], encoding_format: 'float' });
    const sized = await client.embeddings.create({ model: 'e', input: 'alpha', dimensions: 16 });
    expect(one.data[0].embedding).toHaveLength(64);
    expect(Array.from(one.data[0].embedding)).toEqual(again.data[0].embedding);
    expect(again.data[1].embedding).not.toEqual(again.data[0].embedding);
    expect(again.data.map((d) => d.index)).toEqual([0, 1]);
    expect(sized.data[0].embedding).toHaveLength(16);
    for (const vector of [one.data[0].embedding, again.data[1].embedding, sized.data[0].embedding]) {
      expect(Math.hypot(...Array.from(vector))).toBeCloseTo(1, 5);
    }
    expect(server.requests.map((r) => r.path)).toEqual(['/embeddings', '/embeddings', '/embeddings']);
  });

  it('lists a model and refuses unknown routes with a 404 the client does not retry', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['scripted-model']);
    const error = await client.completions.create({ model: 'm', prompt: 'legacy' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /models', 'POST /completions']);
  });
});
