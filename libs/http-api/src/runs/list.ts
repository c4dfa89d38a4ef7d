import type { PriceTable, apiV1 } from '@stagecraft/contracts';
import { entryOf, recordOf } from '@stagecraft/read-models';
import type { ConsoleView } from '../view/console-view';
import { runRow } from './row';

/**
 * Newest first, in the order the runs started; `before` is the index in that order where the page
 * before stopped, so pages neither skip nor repeat while new runs start. Stops as soon as the page is full.
 */
export function listRunRows(view: ConsoleView, query: apiV1.RunsListQuery, prices: PriceTable): apiV1.RunsListReplyV1 {
  const { started } = view.runs;
  const runs: apiV1.RunRow[] = [];
  let i = Math.min(query.before === undefined ? started.length : Number(query.before), started.length) - 1;
  for (; i >= 0 && runs.length < query.limit; i -= 1) {
    const entry = entryOf(view.runs.runs, started[i]);
    if (!entry) continue;
    if (query.status !== undefined && entry.status !== query.status) continue;
    if (query.conversationId !== undefined && entry.conversationId !== query.conversationId) continue;
    if (query.workflowRunId !== undefined && entry.workflowId !== query.workflowRunId) continue;
    runs.push(runRow(recordOf(entry), entryOf(view.extras, entry.runId), entry.projectRoot ?? null, prices));
  }
  return i >= 0 ? { runs, next: String(i + 1) } : { runs };
}
