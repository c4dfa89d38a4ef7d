import { mergeDue } from './merge';
import { AgentRun, WorkflowState, agentRun, currentEntry } from './state';

/** I/O a workflow waits for; the shell does each (idempotently) and reports back an input. */
export type WorkflowEffect =
  /** Make sure the agent's run exists and is driven; report `AgentFinished` when it ends. */
  | { kind: 'run_agent'; run: AgentRun }
  /** Merge the ticket agents' copies back into the project root; report `WorktreesMerged`. */
  | { kind: 'merge'; phase: string; agents: AgentRun[] }
  /**
   * Write the ticket collector's resolved contents over the conflicting files whose user's version is
   * still the one the merge left; report `ConflictsResolved`. Due even once the workflow has ended.
   */
  | {
      kind: 'resolve';
      phase: string;
      round: number;
      resolutions: { path: string; content: string; userSha256: string | null | undefined }[];
    };

/** What the shell has to do for a workflow in this state: nothing once it is finished or while it waits. */
export function workflowEffects(state: WorkflowState): WorkflowEffect[] {
  if (state.status === 'new') return [];
  const resolve: WorkflowEffect[] = state.entries.flatMap((entry) =>
    (entry.merge.resolving ?? []).length === 0
      ? []
      : [
          {
            kind: 'resolve' as const,
            phase: entry.phase,
            round: entry.round,
            resolutions: (entry.merge.resolving ?? []).map((r) => ({
              ...r,
              userSha256: entry.merge.conflicts.find((c) => c.path === r.path)?.userSha256,
            })),
          },
        ],
  );
  if (state.status !== 'running') return resolve;
  const effects: WorkflowEffect[] = Object.values(state.runs)
    .filter((run) => run.status === 'dispatched')
    .map((run) => ({ kind: 'run_agent' as const, run }));
  const entry = currentEntry(state);
  if (entry && mergeDue(state, entry)) {
    const agents = entry.workAgents.flatMap((id) => {
      const run = agentRun(state, entry, id);
      return run?.status === 'completed' && run.worktree ? [run] : [];
    });
    effects.push({ kind: 'merge', phase: entry.phase, agents });
  }
  return [...resolve, ...effects];
}
