import type { RunCost, RunSummary, TokensByModel } from '@stagecraft/contracts';
import { formatTable } from '../table';

/** `840ms`, `12.3s`, `4m05s`, `2h07m`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)}s`;
  const seconds = Math.floor(ms / 1_000);
  if (seconds < 3_600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3_600)}h${String(Math.floor(seconds / 60) % 60).padStart(2, '0')}m`;
}

/** Priced in full: `$0.0123`; a model without a price: `$0.0123+` (what it used is not counted), or `unpriced`. */
export function formatCost(cost: RunCost): string {
  const amount = `$${cost.amount.toFixed(4)}`;
  if (cost.priced) return amount;
  return cost.amount > 0 ? `${amount}+` : 'unpriced';
}

/** A run's tokens over every model it used; cached prompt tokens are part of the prompt tokens (0 when never reported). */
export interface TokenTotals {
  promptTokens: number;
  cachedPromptTokens: number;
  completionTokens: number;
}

export function tokenTotals(tokens: TokensByModel): TokenTotals {
  const usage = Object.values(tokens);
  return {
    promptTokens: usage.reduce((n, u) => n + u.promptTokens, 0),
    cachedPromptTokens: usage.reduce((n, u) => n + (u.cachedPromptTokens ?? 0), 0),
    completionTokens: usage.reduce((n, u) => n + u.completionTokens, 0),
  };
}

const tokens = (run: RunSummary) => {
  const { promptTokens, cachedPromptTokens, completionTokens } = tokenTotals(run.tokens);
  return `${promptTokens}/${cachedPromptTokens}/${completionTokens}`;
};

/** A followed run's closing line: `tokens: 1200 prompt (800 cached), 90 completion · cost $0.0012`. */
export function formatSpent(totals: TokenTotals, cost: RunCost): string {
  const { promptTokens, cachedPromptTokens, completionTokens } = totals;
  return `tokens: ${promptTokens} prompt (${cachedPromptTokens} cached), ${completionTokens} completion · cost ${formatCost(cost)}`;
}

/** `running (stuck, resumable)`: the status with what a person can do about it. */
function statusOf(run: RunSummary): string {
  const notes = [
    run.stuck ? 'stuck' : null,
    run.resumable ? 'resumable' : null,
    run.pendingApproval ? 'waits for approval' : null,
    // Who stopped it; why is in `runs list --json` and `runs show`.
    run.cancellation ? `by ${run.cancellation.by}` : null,
  ].filter((note) => note !== null);
  return notes.length ? `${run.status} (${notes.join(', ')})` : run.status;
}

/** One row per run, newest first as the list comes; a running run's duration runs to `now`. */
export function formatRuns(runs: readonly RunSummary[], now: Date): string {
  if (runs.length === 0) return 'no runs';
  const rows = runs.map((run) => [
    run.runId,
    statusOf(run),
    run.stage ?? '-',
    run.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    formatDuration(Date.parse(run.endedAt ?? now.toISOString()) - Date.parse(run.startedAt)),
    String(run.modelCalls),
    tokens(run),
    formatCost(run.cost),
    run.deliveryState ?? '-',
    run.qaVerdict ?? '-',
  ]);
  return formatTable(
    ['RUN', 'STATUS', 'STAGE', 'STARTED', 'DURATION', 'MODEL CALLS', 'TOKENS (P/CACHED/C)', 'COST', 'DELIVERY', 'QA'],
    rows,
  );
}
