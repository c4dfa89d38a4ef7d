import { CompactionSettings, CompactionTrigger } from '@stagecraft/contracts';
import { ChatMessage } from '@stagecraft/contracts';

/**
 * Sized for a model with a 128k-token context: history is compacted long before the window is near
 * (a request stays cheap and leaves room for the system prompt, tools and the answer).
 */
export const DEFAULT_COMPACTION: CompactionSettings = {
  method: 'extractive',
  maxMessages: 80,
  maxTokens: 24_000,
  keepRecentTokens: 6_000,
  summaryVersion: 2,
};

/** About four characters a token, as every request's `tokenEstimate` counts them. */
export const tokensOf = (message: ChatMessage): number =>
  Math.ceil((message.content.length + (message.toolCalls ? JSON.stringify(message.toolCalls).length : 0)) / 4);

export const estimateTokens = (messages: readonly ChatMessage[]): number => messages.reduce((sum, m) => sum + tokensOf(m), 0);

/**
 * What a run that turned compaction off (or recorded none) compacts with once it has a window: the default
 * method, no bound of its own; only the window fires it (decision 0050).
 */
export const WINDOW_ONLY_COMPACTION: CompactionSettings = {
  method: DEFAULT_COMPACTION.method,
  maxMessages: Number.MAX_SAFE_INTEGER,
  maxTokens: Number.MAX_SAFE_INTEGER,
  keepRecentTokens: DEFAULT_COMPACTION.keepRecentTokens,
};

/**
 * Seed 002 §7.3: compaction is due when the messages after the system prompt are more, or longer,
 * than the settings allow, or longer than `windowBudget` (the conversation's share of the run's window).
 * The trigger records the token bound that was crossed: the window's when it is the lower one.
 * Deterministic: the same messages, settings and budget always give the same answer.
 */
export function compactionTrigger(
  messages: readonly ChatMessage[],
  settings: CompactionSettings,
  windowBudget = Infinity,
): CompactionTrigger | null {
  const messageCount = messages.length;
  const tokenEstimate = estimateTokens(messages);
  const overWindow = tokenEstimate > windowBudget;
  if (messageCount <= settings.maxMessages && tokenEstimate <= settings.maxTokens && !overWindow) return null;
  const maxTokens = overWindow ? Math.min(settings.maxTokens, windowBudget) : settings.maxTokens;
  return { messageCount, tokenEstimate, maxMessages: settings.maxMessages, maxTokens };
}

/**
 * Where the recent window starts: the latest messages worth about `keepTokens` and no more than
 * `keepMessages` of them, but at least the last exchange (the latest user or assistant message and
 * what follows it). It never starts on a tool result, whose call would then be summarised away from
 * under it. 0 means nothing older can go.
 */
export function recentWindowStart(messages: readonly ChatMessage[], keepTokens: number, keepMessages = Infinity): number {
  let lastTurn = messages.length - 1;
  while (lastTurn > 0 && messages[lastTurn].role === 'tool') lastTurn -= 1;
  let start = messages.length;
  let kept = 0;
  while (start > 0 && messages.length - start < keepMessages && kept + tokensOf(messages[start - 1]) <= keepTokens) {
    start -= 1;
    kept += tokensOf(messages[start]);
  }
  start = Math.min(start, Math.max(lastTurn, 0));
  while (start > 0 && messages[start].role === 'tool') start -= 1;
  return start;
}
