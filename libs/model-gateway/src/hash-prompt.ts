import { createHash } from 'node:crypto';
import type { ChatMessage, ToolSpec } from '@stagecraft/contracts';

export interface PromptHash {
  /** One hash for the whole request: every message in order, plus the tools offered. */
  promptHash: string;
  messageHashes: string[];
  /** Canonical bodies of the messages whose hash was not `known` yet: each body is stored once per run. */
  newBodies: Record<string, string>;
  /** About four characters a token; enough to watch a run's prompt size, not to bill it. */
  tokenEstimate: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with sorted keys and no undefined fields, so equal messages hash equal whatever built them. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const messageBody = (message: ChatMessage): string =>
  canonicalJson({ role: message.role, content: message.content, toolCalls: message.toolCalls, toolCallId: message.toolCallId });

// A run sends its history again with every request: each message (and tool list) is serialised
// and hashed once, the first time it is seen. Messages are immutable values, so identity is enough.
const messageCache = new WeakMap<ChatMessage, { body: string; hash: string }>();
const toolsCache = new WeakMap<ToolSpec[], string>();

function hashedMessage(message: ChatMessage): { body: string; hash: string } {
  let entry = messageCache.get(message);
  if (!entry) {
    const body = messageBody(message);
    entry = { body, hash: sha256(body) };
    messageCache.set(message, entry);
  }
  return entry;
}

function toolsJsonOf(tools: ToolSpec[]): string {
  let json = toolsCache.get(tools);
  if (json === undefined) {
    json = canonicalJson(tools);
    toolsCache.set(tools, json);
  }
  return json;
}

/**
 * Content-addresses a prompt. A run's requests repeat every earlier message, so storing whole
 * prompts would grow its log with the square of its length; storing only unseen bodies keeps it linear.
 */
export function hashPrompt(messages: ChatMessage[], tools: ToolSpec[], known: ReadonlySet<string>): PromptHash {
  const hashed = messages.map(hashedMessage);
  const bodies = hashed.map((h) => h.body);
  const messageHashes = hashed.map((h) => h.hash);
  const newBodies: Record<string, string> = {};
  bodies.forEach((body, i) => {
    if (!known.has(messageHashes[i])) newBodies[messageHashes[i]] = body;
  });
  const toolsJson = toolsJsonOf(tools);
  const promptHash = sha256(`${messageHashes.join('\n')}\n${sha256(toolsJson)}`);
  const chars = bodies.reduce((sum, body) => sum + body.length, toolsJson.length);
  return { promptHash, messageHashes, newBodies, tokenEstimate: Math.ceil(chars / 4) };
}
