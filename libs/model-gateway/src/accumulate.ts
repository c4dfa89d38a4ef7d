import { createHash } from 'node:crypto';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { Id, ToolCall } from '@stagecraft/contracts';
import type { TokenUsage } from './gateway';

/** What one completion said, before latency is known. */
export interface Completion {
  content: string;
  toolCalls: ToolCall[];
  usage?: TokenUsage;
  finishReason: string | null;
  model: string | null;
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Tool call ids travel in stream names and subjects, so an id the endpoint made up in another
 * alphabet (or left out) is replaced by one derived from our request id and the call's position.
 */
function safeCallId(id: string, requestId: string, index: number): string {
  if (Id.safeParse(id).success) return id;
  return `call-${createHash('sha256').update(`${requestId}/${index}`).digest('hex').slice(0, 24)}`;
}

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;

/**
 * The prompt tokens the provider served from its cache, in whichever field its dialect uses: OpenAI and
 * vLLM `prompt_tokens_details.cached_tokens`, Anthropic-compatible `cache_read_input_tokens`, DeepSeek
 * `prompt_cache_hit_tokens`. The endpoint is not trusted: a count that is not a whole number is ignored,
 * and one above the prompt is cut to it, so cached tokens can never price a prompt above its size.
 */
export function cachedPromptTokensOf(usage: NonNullable<ChatCompletionChunk['usage']>): number | undefined {
  const loose = usage as unknown as Record<string, unknown>;
  const details = loose['prompt_tokens_details'];
  const cached =
    count(details && typeof details === 'object' ? (details as Record<string, unknown>)['cached_tokens'] : undefined) ??
    count(loose['cache_read_input_tokens']) ??
    count(loose['prompt_cache_hit_tokens']);
  return cached === undefined ? undefined : Math.min(cached, count(usage.prompt_tokens) ?? 0);
}

export function toUsage(usage: ChatCompletionChunk['usage']): TokenUsage | undefined {
  if (!usage) return undefined;
  const cached = cachedPromptTokensOf(usage);
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
    ...(cached === undefined ? {} : { cachedPromptTokens: cached }),
  };
}

/** Folds streamed chunks into one completion: text in order, tool call fragments joined by their index. */
export function createStreamAccumulator(requestId: string) {
  let content = '';
  let finishReason: string | null = null;
  let model: string | null = null;
  let usage: TokenUsage | undefined;
  const calls = new Map<number, PartialCall>();

  return {
    /** Returns the text this chunk added, for the caller's `onDelta`. */
    add(chunk: ChatCompletionChunk): string {
      if (chunk.model) model = chunk.model;
      usage = toUsage(chunk.usage) ?? usage;
      const choice = chunk.choices?.find((c) => c.index === 0) ?? chunk.choices?.[0];
      if (!choice) return '';
      if (choice.finish_reason) finishReason = choice.finish_reason;
      for (const [position, delta] of (choice.delta?.tool_calls ?? []).entries()) {
        const index = delta.index ?? position;
        const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
        if (delta.id && !call.id) call.id = delta.id;
        call.name += delta.function?.name ?? '';
        call.arguments += delta.function?.arguments ?? '';
        calls.set(index, call);
      }
      const text = choice.delta?.content ?? '';
      content += text;
      return text;
    },
    result(): Completion {
      const toolCalls = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, call]) => ({ id: safeCallId(call.id, requestId, index), name: call.name, arguments: call.arguments || '{}' }));
      return { content, toolCalls, usage, finishReason, model };
    },
  };
}

export function completionOf(response: ChatCompletion, requestId: string): Completion {
  const choice = response.choices[0];
  const toolCalls = (choice?.message.tool_calls ?? []).flatMap((call, index) =>
    call.type === 'function'
      ? [{ id: safeCallId(call.id, requestId, index), name: call.function.name, arguments: call.function.arguments || '{}' }]
      : [],
  );
  return {
    content: choice?.message.content ?? '',
    toolCalls,
    usage: toUsage(response.usage),
    finishReason: choice?.finish_reason ?? null,
    model: response.model || null,
  };
}
