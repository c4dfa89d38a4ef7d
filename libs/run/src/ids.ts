/**
 * Every id a run makes, in one place. Ids derive from the run id and the run's own counters, so a
 * restarted run that decides the same step again makes the same ids.
 */
export const runIds = {
  /** The n-th model request of the run (1-based). */
  modelRequest: (runId: string, n: number) => `${runId}.m${n}`,
  /** The n-th message of the run's own stream (1-based). */
  message: (runId: string, n: number) => `${runId}.msg${n}`,
  /** The user's message that started the run. */
  input: (runId: string) => `${runId}.input`,
  /** The conversation turn a completed run leaves on its conversation stream. */
  turnUser: (runId: string) => `${runId}.user`,
  turnAnswer: (runId: string) => `${runId}.answer`,
  /** The n-th compaction of the run's history (1-based). */
  compaction: (runId: string, n: number) => `${runId}.compaction${n}`,
  /** Safe for stream names and subjects: the model chooses its tool call ids, so they are cleaned first. */
  toolCall: (requestId: string, modelCallId: string) =>
    `${requestId}.${modelCallId.replace(/[^A-Za-z0-9_:-]/g, '_').slice(0, 48) || 'call'}`,
  /** The run whose model request made a `toolCall` id; null for an id made otherwise. */
  runOfToolCall: (callId: string): string | null => /^(.+)\.m\d+\.[A-Za-z0-9_:-]+$/.exec(callId)?.[1] ?? null,
} as const;

export const MAIN_AGENT = 'main';

/**
 * The run a tool call is asked for as. A fork asks for a call copied from the run it forked as that
 * run (the one whose model asked for it), so the tool service, idempotent by call id, hands back the
 * recorded result instead of refusing a known id; every other call is the run's own.
 */
export function toolCallRequester(start: { runId: string; forkedFrom?: { runId: string } }, callId: string): string {
  if (!start.forkedFrom) return start.runId;
  return runIds.runOfToolCall(callId) ?? start.forkedFrom.runId;
}
