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

/**
 * Content-addresses a prompt. A run's requests repeat every earlier message, so storing whole
 * prompts would grow its log with the square of its length; storing only unseen bodies keeps it linear.
 */
export function hashPrompt(messages: ChatMessage[], tools: ToolSpec[], known: ReadonlySet<string>): PromptHash {
  const bodies = messages.map(messageBody);
  const messageHashes = bodies.map(sha256);
  const newBodies: Record<string, string> = {};
  bodies.forEach((body, i) => {
    if (!known.has(messageHashes[i])) newBodies[messageHashes[i]] = body;
  });
  const toolsJson = canonicalJson(tools);
  const promptHash = sha256(`${messageHashes.join('\n')}\n${sha256(toolsJson)}`);
  const chars = bodies.reduce((sum, body) => sum + body.length, toolsJson.length);
  return { promptHash, messageHashes, newBodies, tokenEstimate: Math.ceil(chars / 4) };
}
