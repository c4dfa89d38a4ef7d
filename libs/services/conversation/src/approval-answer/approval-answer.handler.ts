import type { ApprovalAnswerReply, ApprovalAnswerRequest } from '@stagecraft/contracts';
import type { Conversation } from '../dependencies';
import { answerRunApproval } from './answer-run-approval';
import { answerWorkflowApproval } from './answer-workflow-approval';

/** `approval.answer`: a person's yes or no to what a run (or a workflow) waits for. */
export async function approvalAnswer(request: ApprovalAnswerRequest, { ports, registry }: Conversation): Promise<ApprovalAnswerReply> {
  // An id that names a workflow is answered by the workflow; every other id is a run's.
  return (await answerWorkflowApproval(ports, request)) ?? answerRunApproval(ports, registry, request);
}
