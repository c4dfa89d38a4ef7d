import { ChatMessage, ToolSpec } from '@stagecraft/contracts';

/** The bounds as `RunStarted.limits` recorded them: a log from before the window has none. */
type RecordedLimits = { contextWindow?: number } | undefined;

/**
 * Tokens of the window that the conversation never gets: the system prompt, the stage message, the tool
 * definitions and the answer. The decider cannot see those parts (the shell assembles them), so the share
 * is a fixed function of the recorded window: the same log always compacts the same way (decision 0050).
 */
export const windowReserve = (window: number): number => Math.min(12_000, Math.floor(window / 2));

/** Tokens of the window left for the answer when a request is checked: the model writes into the same window. */
export const answerReserve = (window: number): number => Math.min(4_096, Math.floor(window / 8));

/** Room a compaction leaves for its summary next to the recent messages it keeps verbatim. */
export const summaryAllowance = (budget: number): number => Math.min(4_000, Math.floor(budget / 4));

/**
 * Estimated tokens the conversation part of a request (summary and messages after the system prompt) may
 * carry: the recorded window less its reserve. Infinity for a run that recorded no window (older logs
 * replay as they were decided).
 */
export function conversationBudget(limits: RecordedLimits): number {
  const window = limits?.contextWindow;
  return window === undefined ? Infinity : window - windowReserve(window);
}

/** The estimate every request records (`ModelRequested.tokenEstimate`): about four characters a token, tool definitions included. */
export function requestTokens(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): number {
  const chars = messages.reduce((sum, m) => sum + m.content.length + (m.toolCalls ? jsonLength(m.toolCalls) : 0), jsonLength(tools));
  return Math.ceil(chars / 4);
}

/**
 * The length of a value's canonical JSON, which recorded estimates were taken of: key order does not
 * change a length, so plain `JSON.stringify` gives it at a fraction of the cost.
 */
const jsonLength = (value: unknown): number => JSON.stringify(value).length;

/**
 * No request goes beyond the run's window (docs/decisions/0050). Checked by the shell once the request is assembled,
 * like `requestViolations`: a non-empty list ends the run with that cause instead of sending it.
 * A run that recorded no window is never refused here.
 */
export function requestOverWindow(limits: RecordedLimits, messages: readonly ChatMessage[], tools: readonly ToolSpec[]): string[] {
  const window = limits?.contextWindow;
  if (window === undefined) return [];
  const tokens = requestTokens(messages, tools);
  const room = window - answerReserve(window);
  if (tokens <= room) return [];
  const n = (value: number) => value.toLocaleString('en-US');
  return [
    `context window: the request would carry about ${n(tokens)} tokens in ${messages.length} messages and ${tools.length} tool definitions, ` +
      `more than the ${n(room)} the run's window of ${n(window)} holds with ${n(window - room)} kept for the answer; compaction could not shrink it further`,
  ];
}
