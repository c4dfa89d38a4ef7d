import { createHash } from 'node:crypto';
import { canonicalJson } from '@stagecraft/contracts';
import type { ChatMessage, ToolSpec } from '@stagecraft/contracts';

/** The one canonical form lives in contracts; the gateway's index still offers it. */
export { canonicalJson };

export interface PromptHash {
  /** One hash for the whole request: every message in order, plus the tools offered. */
  promptHash: string;
  messageHashes: string[];
  /** Canonical bodies (and a long message's pieces) whose hash is not `known`: each is stored once per store, under its hash. */
  newBodies: Record<string, string>;
  /** About four characters a token; enough to watch a run's prompt size, not to bill it. */
  tokenEstimate: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Contents at least this long are stored in pieces: a system prompt that changed in one section stores that section alone. */
export const PIECEWISE_FROM = 1024;

const isHeadingAt = (content: string, at: number): boolean => {
  let level = 0;
  while (content.charCodeAt(at + level) === 35 /* # */) level += 1;
  return level >= 1 && level <= 6 && content.charCodeAt(at + level) === 32; /* space */
};

/** Cut before every markdown heading line; joining the pieces gives the content back exactly. */
export function piecesOf(content: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let at = content.indexOf('\n#'); at !== -1; at = content.indexOf('\n#', at + 2)) {
    if (at > start && isHeadingAt(content, at + 1)) {
      pieces.push(content.slice(start, at));
      start = at;
    }
  }
  pieces.push(content.slice(start));
  return pieces;
}

const bodyOf = (message: ChatMessage, content: { content: string } | { contentPieces: string[] }): string =>
  canonicalJson({ role: message.role, ...content, toolCalls: message.toolCalls, toolCallId: message.toolCallId });

export const messageBody = (message: ChatMessage): string => bodyOf(message, { content: message.content });

interface HashedMessage {
  body: string;
  hash: string;
  /** For a piecewise body: each piece of the content and its hash, stored as bodies of their own. */
  pieces: { text: string; hash: string }[];
  /** Content and tool calls, for the token estimate. */
  chars: number;
}

// Sections repeat in every request of every run; a string is its own key, so each is hashed once.
const pieceHashes = new Map<string, string>();
const MAX_CACHED_PIECES = 4096;

function pieceHash(text: string): string {
  let hash = pieceHashes.get(text);
  if (hash === undefined) {
    if (pieceHashes.size >= MAX_CACHED_PIECES) pieceHashes.clear();
    hash = sha256(text);
    pieceHashes.set(text, hash);
  }
  return hash;
}

function hashMessage(message: ChatMessage): HashedMessage {
  const chars = message.content.length + (message.toolCalls ? canonicalJson(message.toolCalls).length : 0);
  if (message.content.length < PIECEWISE_FROM) {
    const body = messageBody(message);
    return { body, hash: sha256(body), pieces: [], chars };
  }
  const pieces = piecesOf(message.content).map((text) => ({ text, hash: pieceHash(text) }));
  const body = bodyOf(message, { contentPieces: pieces.map((p) => p.hash) });
  return { body, hash: sha256(body), pieces, chars };
}

// A run sends its history again with every request: each message (and tool list) is serialised
// and hashed once, the first time it is seen. Messages are immutable values, so identity is enough.
const messageCache = new WeakMap<ChatMessage, HashedMessage>();
const toolsCache = new WeakMap<ToolSpec[], { json: string; hash: string }>();

function hashedMessage(message: ChatMessage): HashedMessage {
  let entry = messageCache.get(message);
  if (!entry) {
    entry = hashMessage(message);
    messageCache.set(message, entry);
  }
  return entry;
}

function hashedTools(tools: ToolSpec[]): { json: string; hash: string } {
  let entry = toolsCache.get(tools);
  if (entry === undefined) {
    const json = canonicalJson(tools);
    entry = { json, hash: sha256(json) };
    toolsCache.set(tools, entry);
  }
  return entry;
}

/**
 * Content-addresses a prompt. A run's requests repeat every earlier message, so storing whole
 * prompts would grow its log with the square of its length; storing only unseen bodies keeps it
 * linear. A long message is stored as its pieces' hashes, and each piece once (`restoreMessages`).
 */
export function hashPrompt(messages: ChatMessage[], tools: ToolSpec[], known: ReadonlySet<string>): PromptHash {
  const hashed = messages.map(hashedMessage);
  const messageHashes = hashed.map((h) => h.hash);
  const newBodies: Record<string, string> = {};
  const keep = (hash: string, body: string) => {
    if (!known.has(hash)) newBodies[hash] = body;
  };
  for (const { body, hash, pieces } of hashed) {
    for (const piece of pieces) keep(piece.hash, piece.text);
    keep(hash, body);
  }
  const toolSet = hashedTools(tools);
  const promptHash = sha256(`${messageHashes.join('\n')}\n${toolSet.hash}`);
  const chars = hashed.reduce((sum, h) => sum + h.chars, toolSet.json.length);
  return { promptHash, messageHashes, newBodies, tokenEstimate: Math.ceil(chars / 4) };
}

/**
 * The hashes under which `messages` are stored (bodies and, for long ones, their pieces). Messages the
 * log holds already (the run's own, its conversation's earlier turns) count as known: a reader rebuilds
 * their bodies from those events (`storedBodiesOf`), so they are not stored a second time.
 */
export function storedHashesOf(messages: readonly ChatMessage[]): string[] {
  return [...storedBodiesOf(messages).keys()];
}

/** The bodies `messages` are stored under, by hash: each message's body and, for a long one, its pieces. */
export function storedBodiesOf(messages: readonly ChatMessage[]): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const message of messages) {
    const { body, hash, pieces } = hashedMessage(message);
    for (const piece of pieces) bodies.set(piece.hash, piece.text);
    bodies.set(hash, body);
  }
  return bodies;
}

/** The pieces a message's stored body is made of, by hash: those of a long message's content; none for a short one. */
export function piecesNamedBy(messageBody: string): string[] {
  const { contentPieces } = JSON.parse(messageBody) as { contentPieces?: string[] };
  return contentPieces ?? [];
}

/** The messages of a recorded request, from its hashes and the bodies they name (with the pieces those name). */
export function restoreMessages(messageHashes: readonly string[], bodies: ReadonlyMap<string, string>): ChatMessage[] {
  const bodyAt = (hash: string) => {
    const body = bodies.get(hash);
    if (body === undefined) throw new Error(`no body stored for ${hash}`);
    return body;
  };
  return messageHashes.map((hash) => {
    const { contentPieces, content, ...rest } = JSON.parse(bodyAt(hash)) as ChatMessage & { contentPieces?: string[] };
    return { ...rest, content: contentPieces ? contentPieces.map(bodyAt).join('') : content } as ChatMessage;
  });
}
