import { WorkflowDecision } from './decision';
import { PhaseEntry, StartedWorkflow, agentRun } from './state';

export type GateKind = 'before_merge' | 'after_planning';

/** The approval id of a gate of a phase round: the decider asks under it, and reads the answer by it. */
export const gateId = (s: StartedWorkflow, entry: PhaseEntry, kind: GateKind): string =>
  `${s.start.workflowId.slice(0, 90)}.${kind}.${entry.round}`;

/** Whether the workflow has this gate and nobody answered it yet: then it waits for a person. */
const unanswered = (s: StartedWorkflow, entry: PhaseEntry, kind: GateKind): boolean =>
  (kind === 'before_merge' ? s.start.gates.beforeMerge : s.start.gates.afterPlanning) && s.answered[gateId(s, entry, kind)] === undefined;

/** Asks a person before the ticket agents' copies are merged back; true when the workflow now waits. */
export function askBeforeMerge(d: WorkflowDecision, entry: PhaseEntry): boolean {
  const s = d.state;
  if (!unanswered(s, entry, 'before_merge')) return false;
  const done = entry.workAgents.filter((id) => agentRun(s, entry, id)?.status === 'completed');
  d.emit('ApprovalRequested', {
    approvalId: gateId(s, entry, 'before_merge'),
    kind: 'before_merge',
    summary: `merge the changes of ${done.length} ticket agent(s) (${done.join(', ') || 'none'}) into ${s.start.projectRoot}`,
  });
  return true;
}

/** Asks a person before the tickets phase starts on the planned tickets; true when the workflow now waits. */
export function askAfterPlanning(d: WorkflowDecision, entry: PhaseEntry): boolean {
  const s = d.state;
  if (entry.phase !== 'planning' || !unanswered(s, entry, 'after_planning')) return false;
  const tickets = (s.consolidated['planning']?.result as { tickets?: { ticketId: string; title: string }[] } | undefined)?.tickets ?? [];
  d.emit('ApprovalRequested', {
    approvalId: gateId(s, entry, 'after_planning'),
    kind: 'after_planning',
    summary: `start the tickets phase with ${tickets.length} ticket(s): ${tickets.map((t) => `${t.ticketId} ${t.title}`).join('; ') || 'none'}`,
  });
  return true;
}
