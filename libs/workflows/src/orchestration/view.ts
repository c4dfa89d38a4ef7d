import { WorkflowView } from '@stagecraft/contracts';
import { StartedWorkflow } from './state';
import { worktreesOf } from './worktrees';

const firstLine = (text: string | undefined): string | undefined => text?.trim().split('\n')[0]?.slice(0, 200) || undefined;

/** A step's title and prompt, the part of it the user sees; its agentRole and guidance are the model's alone. */
function stepOf(s: StartedWorkflow, phase: string): { step?: { title: string; prompt: string } } {
  const step = s.start.steps?.steps.find((candidate) => candidate.id === phase);
  return step ? { step: { title: step.title, prompt: step.prompt } } : {};
}

/** The `workflow.get` reply: phases → agents (each agent's latest attempt and the attempts before it) → runs. */
export function workflowView(s: StartedWorkflow): WorkflowView {
  return {
    workflowId: s.start.workflowId,
    kind: s.start.kind,
    goal: s.start.goal,
    projectRoot: s.start.projectRoot,
    status: s.status,
    phases: s.entries.map((entry) => ({
      phase: entry.phase,
      round: entry.round,
      status: entry.status,
      agents: Object.values(s.runs)
        .filter((run) => run.phase === entry.phase && run.round === entry.round)
        .map((run) => ({
          agentId: run.agentId,
          agentType: run.agentType,
          role: run.role,
          contextId: run.contextId,
          runId: run.runId,
          attempt: run.attempt,
          status: run.status,
          ...(run.status === 'completed' || run.error ? { summary: firstLine(run.error?.message ?? run.output) } : {}),
        })),
      ...(entry.decision ? { decision: entry.decision } : {}),
      ...stepOf(s, entry.phase),
    })),
    pendingApproval: s.status === 'waiting' || s.status === 'failed' ? (s.pendingApproval ?? null) : null,
    summary: s.status === 'completed' || s.status === 'cancelled' ? s.summary : null,
    failure: s.status === 'failed' ? s.failure : null,
    halt: s.status === 'stopped' ? s.halt : null,
    eventCount: s.events,
    worktrees: worktreesOf(s),
    conflicts: s.entries.flatMap((entry) =>
      entry.merge.conflicts.map((c) => ({
        path: c.path,
        agentIds: [...c.agentIds],
        ...(c.reason ? { reason: c.reason } : {}),
        ...(c.kept ? { kept: c.kept } : {}),
      })),
    ),
  };
}
