import { AgentRun, PhaseEntry, StartedWorkflow, WorkflowState, agentRun, currentEntry } from './state';

/** I/O a workflow waits for; the shell does each (idempotently) and reports back an input. */
export type WorkflowEffect =
  /** Make sure the agent's run exists and is driven; report `AgentFinished` when it ends. */
  | { kind: 'run_agent'; run: AgentRun }
  /** Merge the ticket agents' copies back into the project root; report `WorktreesMerged`. */
  | { kind: 'merge'; phase: string; agents: AgentRun[] };

/** What the shell has to do for a workflow in this state: nothing once it is finished or while it waits. */
export function workflowEffects(state: WorkflowState): WorkflowEffect[] {
  if (state.status !== 'running') return [];
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
  return effects;
}

function mergeDue(s: StartedWorkflow, entry: PhaseEntry): boolean {
  if (entry.phase !== 'tickets' || entry.status !== 'running' || entry.merge.status !== 'none' || entry.collector !== null) return false;
  if (entry.orchestrator === null || agentRun(s, entry, entry.orchestrator)?.status !== 'completed') return false;
  if (entry.queue.length > 0 || entry.workAgents.some((id) => agentRun(s, entry, id)?.status === 'dispatched')) return false;
  return (
    !s.start.gates.beforeMerge ||
    Object.entries(s.answered).some(([id, answer]) => id.endsWith(`.before_merge.${entry.round}`) && answer === 'given')
  );
}
