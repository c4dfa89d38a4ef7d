import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { createStreamAccumulator } from './accumulate';

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
