import type { PriceTable, RunRecord, apiV1 } from '@stagecraft/contracts';
import { costOf } from '@stagecraft/read-models';
import type { RunExtra } from '../view/console-view';

/** Why a run ended short, in one line: its failure, its cancellation, or why it ended NEEDS_WORK. */
function causeOf(run: RunRecord): string | undefined {
  if (run.failure) return `${run.failure.code}: ${run.failure.reason}`;
  if (run.cancellation) return `cancelled by ${run.cancellation.by}${run.cancellation.reason ? `: ${run.cancellation.reason}` : ''}`;
  if (run.cause) return run.cause;
  return run.limit ? `limit ${run.limit} reached` : undefined;
}

/** A run of the runs view as the runs table shows it. */
export function runRow(run: RunRecord, extra: RunExtra | undefined, projectRoot: string | null, prices: PriceTable): apiV1.RunRow {
  const usage = Object.values(run.tokens);
  const input = usage.reduce((sum, u) => sum + u.promptTokens, 0);
  const cached = usage.reduce((sum, u) => sum + Math.min(u.cachedPromptTokens ?? 0, u.promptTokens), 0);
  const cost = costOf(run.tokens, prices);
  const cause = causeOf(run);
  return {
    runId: run.runId,
    conversationId: run.conversationId,
    status: run.status,
    stage: run.stage,
    mode: run.userMode,
    reasoning: run.reasoningEnabled,
    startedAt: run.startedAt,
    ...(run.endedAt ? { endedAt: run.endedAt, durationMs: Math.max(0, Date.parse(run.endedAt) - Date.parse(run.startedAt)) } : {}),
    tokens: { input, output: usage.reduce((sum, u) => sum + u.completionTokens, 0), cached },
    ...(cost.priced ? { costUsd: cost.amount } : {}),
    cacheShare: input === 0 ? 0 : cached / input,
    ...(run.deliveryState ? { delivery: run.deliveryState } : {}),
    ...(run.qaVerdict ? { qa: { verdict: run.qaVerdict, findings: extra?.qaFindings ?? 0 } } : {}),
    ...(cause ? { cause } : {}),
    ...(extra?.title ? { title: extra.title } : {}),
    ...(projectRoot ? { projectRoot } : {}),
    ...(run.workflowId ? { workflowId: run.workflowId } : {}),
    ...(run.pendingApproval ? { pendingApproval: run.pendingApproval } : {}),
  };
}
