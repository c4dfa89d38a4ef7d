import type { PriceTable, RunRecord, RunSummary } from '@stagecraft/contracts';
import { costOf } from './cost';
import { Idleness, RunsQuery, isResumable, isStuck, listRuns } from './list-runs';
import type { RunsView } from './runs';

/** What a read prices and judges runs with: the price table, and the caller's clock and stuck threshold. */
export interface Reading extends Idleness {
  prices: PriceTable;
}

/** A run as a caller reads it: its record, its cost at today's prices, and whether it is stuck at the caller's clock. */
export const summarize = (run: RunRecord, prices: PriceTable, idleness: Idleness): RunSummary => ({
  ...run,
  cost: costOf(run.tokens, prices),
  stuck: isStuck(run, idleness),
  resumable: isResumable(run),
});

/** `runs.list`: the runs a request asks for, newest first; `stuck` true for stuck runs only, false for the others. */
export function listRunSummaries(view: RunsView, request: Omit<RunsQuery, 'stuck'> & { stuck?: boolean }, reading: Reading): RunSummary[] {
  const { prices, ...idleness } = reading;
  const stuck = request.stuck === undefined ? undefined : { ...idleness, only: request.stuck };
  return listRuns(view, { ...request, stuck }).map((run) => summarize(run, prices, idleness));
}
