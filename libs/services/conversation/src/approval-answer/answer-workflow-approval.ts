import { ApprovalAnswerReply, ApprovalAnswerRequest, withinProjectRoots } from '@stagecraft/contracts';
import type { DriverPorts } from '../driver-ports';
import { WorkflowLog } from '../workflow/workflow-log';

/** `approval.answer` for an id that is a workflow's; null when no workflow of a served project has that id. */
export async function answerWorkflowApproval(ports: DriverPorts, request: ApprovalAnswerRequest): Promise<ApprovalAnswerReply | null> {
  const log = await WorkflowLog.open(ports, request.id);
  const state = log.state;
  // Another project's workflow is left to the run's path, which answers it as an unknown run.
  if (state.status === 'new' || !withinProjectRoots(state.start.projectRoot, ports.projectRoots)) return null;
  // The decider refuses an approval id that is not the pending one, before anything is appended.
  await log.decide({
    type: 'ApprovalAnswered',
    approvalId: request.approvalId,
    decision: request.decision,
    ...(request.reason ? { reason: request.reason } : {}),
    at: ports.clock().toISOString(),
  });
  return { id: request.id, target: 'workflow', approvalId: request.approvalId, decision: request.decision };
}
