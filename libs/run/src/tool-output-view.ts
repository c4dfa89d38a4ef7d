import { InStage, OpenToolCall } from './state';

/**
 * What the model is shown of a tool output (docs/decisions/0049). The log keeps every output whole;
 * a request shows one round of results (all results of one model answer's calls) within a budget,
 * a result past its share as its head, its tail and a line saying how to read what was left out.
 */

/** About four characters a token, as `estimateTokens` (compaction/settings.ts) counts them. */
const CHARS_PER_TOKEN = 4;

/** The share of the context window one round of tool results may take. */
export const TOOL_ROUND_SHARE = 0.25;

/** Characters one round of tool results may take in a run whose window is `contextWindow` tokens. */
export const roundBudgetChars = (contextWindow: number): number => Math.floor(contextWindow * TOOL_ROUND_SHARE * CHARS_PER_TOKEN);

/**
 * A result's share: what the round has left, split evenly between it and the calls still open. A
 * result that needs less leaves the rest to the ones after it; the round never goes over its budget.
 */
export function shareOfRound(budget: number, shownSoFar: number, stillOpen: number): number {
  return Math.floor(Math.max(0, budget - shownSoFar) / Math.max(1, stillOpen));
}

/** How to read what a clipped view leaves out. */
export type OutputHandle =
  /** `read_file`'s output: line n of it is line `firstLine + n - 1` of the file. */
  | { kind: 'file'; path: string; firstLine: number }
  /** Any other tool: its output as the tool service recorded it, by call id. */
  | { kind: 'call'; callId: string };

/**
 * The handle of a call's output: a file read is read on from the file, anything else (a failed read's
 * text included, whose lines are not the file's) from the tool service's record.
 */
export function handleOf(call: { callId: string; tool: string; arguments: Record<string, unknown> }, ok = true): OutputHandle {
  const { path, startLine } = call.arguments;
  if (ok && call.tool === 'read_file' && typeof path === 'string')
    return { kind: 'file', path, firstLine: typeof startLine === 'number' && startLine >= 1 ? startLine : 1 };
  return { kind: 'call', callId: call.callId };
}

function omissionLine(handle: OutputHandle, first: number, last: number, total: number, chars: number): string {
  const what = `[${last - first + 1} of ${total} lines (${chars} characters) left out here to keep the request within the context window`;
  if (handle.kind === 'file') {
    const from = handle.firstLine + first - 1;
    const to = handle.firstLine + last - 1;
    return `${what}; read them in parts with read_file ${JSON.stringify({ path: handle.path, startLine: from, endLine: to })}]`;
  }
  return `${what}; read them in parts with read_tool_output ${JSON.stringify({ callId: handle.callId, startLine: first, endLine: last })}]`;
}

/**
 * The output itself when it fits `maxChars`; otherwise whole lines from its head (about two thirds)
 * and its tail, around the line saying what was left out. Deterministic: the same output, share
 * and handle give the same view, so every later request repeats it byte for byte.
 */
export function clipToolOutput(output: string, maxChars: number, handle: OutputHandle): string {
  if (output.length <= maxChars) return output;
  const lines = output.split('\n');
  const total = lines.length;
  // Sized with the widest numbers it can hold, so the view never outgrows the share by the line's own length.
  const room = Math.max(0, maxChars - omissionLine(handle, total, total, total, output.length).length - 2);
  let head = 0;
  let headChars = 0;
  while (head < total && headChars + lines[head].length + 1 <= Math.floor((room * 2) / 3)) headChars += lines[head++].length + 1;
  let tail = 0;
  let tailChars = 0;
  while (tail < total - head - 1 && tailChars + lines[total - 1 - tail].length + 1 <= room - headChars)
    tailChars += lines[total - 1 - tail++].length + 1;
  const first = head + 1;
  const last = total - tail;
  const leftOut = lines.slice(head, total - tail).join('\n').length;
  const parts = [...lines.slice(0, head), omissionLine(handle, first, last, total, leftOut), ...lines.slice(total - tail)];
  return parts.join('\n');
}

/**
 * The tool-result message of a call's output in a run: in a run that recorded its window, the output
 * within the round's budget, and by reference (`outputOf`) when shown whole, so the log holds it once
 * (in `ToolCallCompleted`); a clipped view is held as shown. Runs that recorded no window (older logs)
 * get the output itself, as they always did.
 */
export function toolResultView(
  s: InStage,
  call: OpenToolCall,
  { output, ok }: { output: string; ok: boolean },
): { content: string; outputOf?: string } {
  const contextWindow = s.start.limits?.contextWindow;
  if (contextWindow === undefined) return { content: output };
  const round = s.history.slice(s.history.findLastIndex((m) => (m.message.toolCalls?.length ?? 0) > 0) + 1);
  const shownSoFar = round.reduce((sum, m) => sum + (m.message.role === 'tool' ? m.message.content.length : 0), 0);
  const open = s.current.step.kind === 'tools' ? s.current.step.open.length : 1;
  const view = clipToolOutput(output, shareOfRound(roundBudgetChars(contextWindow), shownSoFar, open), handleOf(call, ok));
  return view === output ? { content: '', outputOf: call.callId } : { content: view };
}
