import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { completionOf, createStreamAccumulator, toUsage } from './accumulate';

type Delta = ChatCompletionChunk.Choice.Delta;
const chunk = (delta: Delta, extra: Partial<ChatCompletionChunk.Choice> = {}, model = 'm-1'): ChatCompletionChunk => ({
  id: 'x',
  object: 'chat.completion.chunk',
  created: 0,
  model,
  choices: [{ index: 0, delta, finish_reason: null, ...extra }],
});

describe('stream accumulator', () => {
  it('joins text in order and reports each piece', () => {
    const acc = createStreamAccumulator('req-1');
    expect([
      acc.add(chunk({ role: 'assistant', content: 'Hel' })),
      acc.add(chunk({ content: 'lo' })),
      acc.add(chunk({}, { finish_reason: 'stop' })),
    ]).toEqual(['Hel', 'lo', '']);
    expect(acc.result()).toEqual({ content: 'Hello', toolCalls: [], usage: undefined, finishReason: 'stop', model: 'm-1' });
  });

  it('reassembles interleaved tool call fragments by index, and takes usage from the final chunk', () => {
    const acc = createStreamAccumulator('req-1');
    acc.add(chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'list_dir', arguments: '{"pa' } }] }));
    acc.add(chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read_', arguments: '' } }] }));
    acc.add(
      chunk({
        tool_calls: [
          { index: 0, function: { name: 'file', arguments: '{"path":"a.ts"}' } },
          { index: 1, function: { arguments: 'th":"."}' } },
        ],
      }),
    );
    acc.add(chunk({}, { finish_reason: 'tool_calls' }));
    acc.add({ ...chunk({}), choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
    const result = acc.result();
    expect(result.toolCalls).toEqual([
      { id: 'call_a', name: 'read_file', arguments: '{"path":"a.ts"}' },
      { id: 'call_b', name: 'list_dir', arguments: '{"path":"."}' },
    ]);
    expect(result.toolCalls.map((c) => JSON.parse(c.arguments))).toEqual([{ path: 'a.ts' }, { path: '.' }]);
    expect(result.finishReason).toBe('tool_calls');
    expect(result.usage).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
  });

  it('replaces missing or unsafe call ids with stable ones derived from the request', () => {
    const ids = (requestId: string) => {
      const acc = createStreamAccumulator(requestId);
      acc.add(
        chunk({
          tool_calls: [
            { index: 0, function: { name: 'list_dir', arguments: '' } },
            { index: 1, id: 'call/../x y', function: { name: 'read_file' } },
          ],
        }),
      );
      return acc.result().toolCalls.map((c) => [c.id, c.arguments]);
    };
    const first = ids('req-1');
    expect(first).toEqual([
      [expect.stringMatching(/^call-[a-f0-9]{24}$/), '{}'],
      [expect.stringMatching(/^call-[a-f0-9]{24}$/), '{}'],
    ]);
    expect(first[0][0]).not.toBe(first[1][0]);
    expect(ids('req-1')).toEqual(first);
    expect(ids('req-2')[0][0]).not.toBe(first[0][0]);
  });
});

describe('cached prompt tokens', () => {
  const base = { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 };
  type Raw = NonNullable<ChatCompletionChunk['usage']>;
  const read = (extra: Record<string, unknown>) => toUsage({ ...base, ...extra } as Raw);

  it.each([
    ['OpenAI and vLLM', { prompt_tokens_details: { cached_tokens: 64 } }],
    ['Anthropic-compatible endpoints', { cache_read_input_tokens: 64 }],
    ['DeepSeek', { prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 }],
  ])('reads them as %s report them', (_dialect, extra) => {
    expect(read(extra)).toEqual({ promptTokens: 100, completionTokens: 5, totalTokens: 105, cachedPromptTokens: 64 });
  });

  it('leaves them out when the endpoint does not say, and reads a reported 0 as 0', () => {
    expect(read({})).toEqual({ promptTokens: 100, completionTokens: 5, totalTokens: 105 });
    expect(read({ prompt_tokens_details: { cached_tokens: 0 } })?.cachedPromptTokens).toBe(0);
  });

  it('ignores counts that are not whole numbers and cuts one above the prompt to the prompt', () => {
    expect(read({ prompt_tokens_details: { cached_tokens: -3 } })?.cachedPromptTokens).toBeUndefined();
    expect(read({ prompt_tokens_details: { cached_tokens: '64' } })?.cachedPromptTokens).toBeUndefined();
    expect(read({ prompt_tokens_details: null, cache_read_input_tokens: 1.5 })?.cachedPromptTokens).toBeUndefined();
    expect(read({ prompt_tokens_details: { cached_tokens: 10_000 } })?.cachedPromptTokens).toBe(100);
  });

  it('carries them through a stream and a whole completion', () => {
    const acc = createStreamAccumulator('req-1');
    acc.add({ ...chunk({}), choices: [], usage: { ...base, prompt_tokens_details: { cached_tokens: 32 } } });
    expect(acc.result().usage?.cachedPromptTokens).toBe(32);
    const whole = completionOf(
      {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'm-1',
        choices: [{ index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, finish_reason: 'stop', logprobs: null }],
        usage: { ...base, prompt_tokens_details: { cached_tokens: 16 } },
      },
      'req-1',
    );
    expect(whole.usage?.cachedPromptTokens).toBe(16);
  });
});
