import type { RunRecord } from '@stagecraft/contracts';
import { entryOf } from '../logged';
import { RunsView, recordOf } from './runs';

/** The caller's clock and patience: a run idle for longer than `idleMs` at `now` is stuck. */
export interface Idleness {
  now: Date;
  idleMs: number;
}

/** Started, never ended, not waiting for a person, and nothing happened to it for longer than the threshold. */
export const isStuck = (run: RunRecord, { now, idleMs }: Idleness): boolean =>
  run.status === 'running' && !run.pendingApproval && now.getTime() - Date.parse(run.updatedAt) > idleMs;

/**
 * What `runs resume` takes on to its end: a run started and not ended that waits for no person, or a
 * person's run that was cancelled (a workflow's agent run is its workflow's to continue).
 */
export const isResumable = (run: RunRecord): boolean =>
  run.status === 'running' ? !run.pendingApproval : run.status === 'cancelled' && run.workflowId === undefined;

export interface RunsQuery {
  status?: RunRecord['status'];
  conversationId?: string;
  /** Only stuck runs (`only` true, the default) or only the others. */
  stuck?: Idleness & { only?: boolean };
  /** Only runs whose project this says may be shown (a deployment's roots); absent: every run. */
  visible?: (projectRoot: string | null) => boolean;
  limit: number;
}

/** Newest first, in the order the runs started in the log; stops as soon as `limit` runs matched. */
export function listRuns(view: RunsView, query: RunsQuery): RunRecord[] {
  const found: RunRecord[] = [];
  for (let i = view.started.length - 1; i >= 0 && found.length < query.limit; i -= 1) {
    const run = entryOf(view.runs, view.started[i]);
    if (!run) continue;
    if (query.visible && !query.visible(run.projectRoot ?? null)) continue;
    if (query.status !== undefined && run.status !== query.status) continue;
    if (query.conversationId !== undefined && run.conversationId !== query.conversationId) continue;
    if (query.stuck && isStuck(run, query.stuck) !== (query.stuck.only ?? true)) continue;
    found.push(recordOf(run));
  }
  return found;
}

/** Runs that started, have not ended, and have been idle for longer than `idleMs` at `now`: newest first. */
export const stuckRuns = (view: RunsView, idleness: Idleness, limit = Number.POSITIVE_INFINITY): RunRecord[] =>
  listRuns(view, { stuck: idleness, limit });

export function runOf(view: RunsView, runId: string): RunRecord | null {
  const run = entryOf(view.runs, runId);
  return run ? recordOf(run) : null;
}
