import { StagecraftError } from '@stagecraft/contracts';
import { WorkflowDecision } from './decision';
import { dispatchCollector } from './dispatch';
import { WorkflowInput } from './inputs';
import { advance, followUp, routeBack } from './phases';

/**
 * A person answered the gate the workflow waits at. Approved, it goes on (the tickets phase starts, or
 * the copies are merged); denied after planning, it plans again; denied before the merge, nothing is
 * merged and the collector hears that. Any other approval id, or a workflow that waits for none, is refused.
 */
export function approvalAnswered(d: WorkflowDecision, input: Extract<WorkflowInput, { type: 'ApprovalAnswered' }>): void {
  const s = d.state;
  if (s.status !== 'waiting') throw new StagecraftError('CONFLICT', `workflow ${s.start.workflowId} is not waiting for an approval`);
  const pending = s.pendingApproval;
  if (input.approvalId !== undefined && input.approvalId !== pending.approvalId)
    throw new StagecraftError('CONFLICT', `approval ${input.approvalId} is not the one workflow ${s.start.workflowId} waits for`);
  if (input.decision === 'approve') {
    d.emit('ApprovalGiven', { approvalId: pending.approvalId, ...(input.reason ? { note: input.reason } : {}) });
    if (pending.kind === 'after_planning') advance(d);
    else followUp(d);
    return;
  }
  const reason = input.reason ?? '';
  d.emit('ApprovalDenied', { approvalId: pending.approvalId, reason });
  if (pending.kind === 'after_planning')
    routeBack(d, 'planning', 'planning', `the user did not approve the tickets${reason ? `: ${reason}` : ''}`);
  else dispatchCollector(d);
}
