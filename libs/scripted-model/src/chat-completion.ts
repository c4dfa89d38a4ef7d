import { RecordedRequest, ScriptedReply } from './script';

/** One scripted reply resolved against its request: everything both wire formats are built from. */
export interface Completion {
  id: string;
  created: number;
  model: string;
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: 'stop' | 'tool_calls' | 'length';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
}

// A fixed epoch plus the request index, so replies are identical from run to run.
const CREATED_BASE = 1_700_000_000;

export function resolveCompletion(request: RecordedRequest, reply: ScriptedReply): Completion {
  const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${request.index}_${i}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  const content = reply.content ?? (toolCalls.length > 0 ? null : '');
  const usage = reply.usage ?? estimateUsage(request, content, toolCalls);
  return {
    id: `chatcmpl-scripted-${request.index}`,
    created: CREATED_BASE + request.index,
    model: typeof request.body?.model === 'string' ? request.body.model : 'scripted-model',
    content,
    toolCalls,
    finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** About four characters a token: enough for gateways that log usage to see plausible numbers. */
function estimateUsage(request: RecordedRequest, content: string | null, toolCalls: Completion['toolCalls']) {
  const prompt = JSON.stringify(request.body?.messages ?? '').length;
  const completion = (content ?? '').length + toolCalls.reduce((sum, c) => sum + c.name.length + c.arguments.length, 0);
  return { prompt_tokens: Math.ceil(prompt / 4), completion_tokens: Math.max(1, Math.ceil(completion / 4)) };
}

export function completionJson(c: Completion) {
  const toolCalls = c.toolCalls.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: c.id,
    object: 'chat.completion',
    created: c.created,
    model: c.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: c.content, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        logprobs: null,
        finish_reason: c.finishReason,
      },
    ],
    usage: c.usage,
  };
}
