import { WorkflowWorktreeView } from '@stagecraft/contracts';
import { StartedWorkflow, isLive } from './state';

/**
 * Every ticket agent's copy and where its merge stands. A copy is removed only once merged without a
 * conflict; any other is kept for the user (docs/decisions/0036). Pure.
 */
export function worktreesOf(s: StartedWorkflow): WorkflowWorktreeView[] {
  const ended = !isLive(s);
  return Object.values(s.runs).flatMap((run) => {
    if (run.worktree === undefined) return [];
    const entry = s.entries.find((e) => e.phase === run.phase && e.round === run.round);
    const merge = entry?.merge;
    const mergedThis = merge?.status === 'merged' && run.status === 'completed' && entry?.latest[run.agentId] === run.runId;
    const state: WorkflowWorktreeView['state'] =
      merge?.status === 'refused'
        ? 'refused'
        : mergedThis
          ? merge.conflicts.some((c) => c.agentIds.includes(run.agentId))
            ? 'conflicted'
            : 'merged'
          : ended || merge?.status === 'merged'
            ? 'not-merged'
            : 'pending';
    const ticket = run.upstream.find((u) => u.kind === 'ticket');
    return [
      {
        agentId: run.agentId,
        runId: run.runId,
        ...(ticket?.kind === 'ticket' ? { ticketId: ticket.ticket.ticketId } : {}),
        path: run.worktree.path,
        state,
      },
    ];
  });
}
