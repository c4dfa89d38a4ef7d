import { Completion } from './chat-completion';

/**
 * The stream a real endpoint sends: the role first, the text in a few pieces, each tool call opened
 * with its id and name and then its arguments in pieces, the finish reason, and usage when asked.
 */
export function completionChunks(c: Completion, includeUsage: boolean): object[] {
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const chunks: object[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of pieces(c.content ?? '', 4)) chunks.push(chunk({ content: piece }));
  c.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of pieces(call.arguments, 3)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, c.finishReason));
  if (includeUsage)
    chunks.push({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices: [], usage: c.usage });
  return chunks;
}

/** Splits by code point, never inside a surrogate pair, into at most `count` pieces. */
export function pieces(text: string, count: number): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const size = Math.ceil(chars.length / count);
  const out: string[] = [];
  for (let start = 0; start < chars.length; start += size) out.push(chars.slice(start, start + size).join(''));
  return out;
}
