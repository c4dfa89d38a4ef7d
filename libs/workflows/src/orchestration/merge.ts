import { WorkflowDecision } from './decision';
import { dispatchCollector } from './dispatch';
import { gateId } from './gates';
import { WorkflowInput } from './inputs';
import { PhaseEntry, StartedWorkflow, agentRun, currentEntry, isWorking } from './state';

/** The tickets phase's agents are all done and nothing is merged yet: the copies are merged next. */
export function mergeWaiting(s: StartedWorkflow, entry: PhaseEntry): boolean {
  if (entry.phase !== 'tickets' || entry.status !== 'running' || entry.merge.status !== 'none' || entry.collector !== null) return false;
  if (entry.orchestrator === null || agentRun(s, entry, entry.orchestrator)?.status !== 'completed') return false;
  return entry.queue.length === 0 && !entry.workAgents.some((id) => isWorking(s, entry, id));
}

/**
 * The merge is due: it waits, and the workflow has no before-merge gate, or a person opened it. The one
 * rule the decider (which asks at the gate) and the shell (which merges when this holds) both read.
 */
export const mergeDue = (s: StartedWorkflow, entry: PhaseEntry): boolean =>
  mergeWaiting(s, entry) && (!s.start.gates.beforeMerge || s.answered[gateId(s, entry, 'before_merge')] === 'given');

/** The shell merged the copies back: recorded once, then the ticket collector consolidates. */
export function worktreesMerged(d: WorkflowDecision, input: Extract<WorkflowInput, { type: 'WorktreesMerged' }>): void {
  const entry = currentEntry(d.state);
  if (d.state.status !== 'running' || entry === null) return;
  if (entry.phase !== 'tickets' || entry.merge.status !== 'none' || entry.collector !== null) return;
  d.emit('WorktreesMerged', {
    phase: entry.phase,
    merged: input.merged,
    conflicts: input.conflicts,
    ...(input.snapshotId ? { snapshotId: input.snapshotId } : {}),
  });
  dispatchCollector(d);
}

/** The shell wrote the collector's resolutions: recorded once per collector decision, also after the workflow ended. */
export function conflictsResolved(d: WorkflowDecision, input: Extract<WorkflowInput, { type: 'ConflictsResolved' }>): void {
  const entry = d.state.entries.find((e) => e.phase === input.phase && e.round === input.round);
  if (entry === undefined || (entry.merge.resolving ?? []).length === 0) return;
  d.emit('ConflictsResolved', { phase: input.phase, round: input.round, resolved: input.resolved, unresolved: input.unresolved });
}
