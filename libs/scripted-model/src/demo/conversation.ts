import { createHash } from 'node:crypto';
import { RecordedRequest } from '../script';

export type DemoStage = 'warmup' | 'act' | 'tool_followup' | 'delivery_check' | 'qa_review';
const STAGES: readonly DemoStage[] = ['warmup', 'act', 'tool_followup', 'delivery_check', 'qa_review'];

export interface ToolExchange {
  name: string;
  args: Record<string, unknown>;
  result: string;
}

/** What the demo model can tell from one request, the way a model would: from the messages alone. */
export interface Conversation {
  stage: DemoStage;
  system: string;
  /** The latest user message, on one line. */
  userInput: string;
  offered: ReadonlySet<string>;
  exchanges: ToolExchange[];
  /** The latest assistant text that came without tool calls: the answer so far. */
  lastAnswer: string | null;
  /** Every non-system message's text, for what the conversation mentions at all. */
  transcript: string;
  /** A seed for tool call ids: stable for the same request, different across runs and steps. */
  idSeed: string;
}

const STAGE_PART = /^<stage_instructions>\n/;

type WireMessage = {
  role?: string;
  content?: unknown;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
  tool_call_id?: string;
};

export function readConversation(request: RecordedRequest): Conversation {
  const messages: WireMessage[] = Array.isArray(request.body?.messages) ? request.body.messages : [];
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  const exchanges: ToolExchange[] = [];
  let lastAnswer: string | null = null;
  for (const message of messages) {
    const text = textOf(message.content);
    if (message.role === 'assistant' && (message.tool_calls ?? []).length > 0) {
      for (const call of message.tool_calls ?? [])
        calls.set(call.id ?? '', { name: call.function?.name ?? '', args: parseArgs(call.function?.arguments) });
    } else if (message.role === 'assistant' && text.trim() !== '') lastAnswer = text.trim();
    else if (message.role === 'tool') {
      const call = calls.get(message.tool_call_id ?? '');
      if (call) exchanges.push({ ...call, result: text });
    }
  }
  // The stage's part of the prompt may come as a tagged user message (STAGECRAFT_STAGE_MESSAGE_ROLE=user): it is prompt, not the user.
  const isPrompt = (m: WireMessage) => m.role === 'system' || (m.role === 'user' && STAGE_PART.test(textOf(m.content)));
  const users = messages.filter((m) => m.role === 'user' && !isPrompt(m)).map((m) => textOf(m.content));
  // Tools offered with tool_choice "none" may not be called: a model that follows the request sees none.
  const tools: unknown[] = Array.isArray(request.body?.tools) && request.body.tool_choice !== 'none' ? request.body.tools : [];
  return {
    stage: STAGES.find((stage) => stage === request.stage) ?? 'act',
    system: messages
      .filter(isPrompt)
      .map((m) => textOf(m.content))
      .join('\n\n'),
    userInput: oneLine(users[users.length - 1] ?? '', 120),
    offered: new Set(tools.map((tool) => (tool as { function?: { name?: string } }).function?.name ?? '')),
    exchanges,
    lastAnswer,
    transcript: messages
      .filter((m) => !isPrompt(m))
      .map((m) => textOf(m.content))
      .join('\n'),
    idSeed: createHash('sha256')
      .update(`${request.headers['x-stagecraft-run-id'] ?? ''}\n${JSON.stringify(messages)}`)
      .digest('hex'),
  };
}

/** The reasoning instruction is the one place a request names the block; off means no such instruction. */
export const reasoningRequested = (c: Conversation): boolean => /<ide_reasoning>/i.test(c.system);
export const macroRequested = (c: Conversation): boolean =>
  c.stage === 'warmup' && reasoningRequested(c) && /\bAnalyze\b/.test(c.system) && /\bResearch\b/.test(c.system);
export const chatMode = (c: Conversation): boolean => /^#+\s*chat mode\b/im.test(c.system);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  return '';
}

function parseArgs(raw: string | undefined): Record<string, unknown> {
  try {
    const parsed = JSON.parse(raw ?? '{}');
    return parsed !== null && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

/** One line, no reasoning tags, at most `max` characters: safe to quote inside a block or a file. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/[<>]/g, '').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
