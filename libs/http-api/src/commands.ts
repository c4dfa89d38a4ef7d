import { StagecraftError, apiV1 } from '@stagecraft/contracts';
import type { z } from 'zod';
import { entryOf } from '@stagecraft/read-models';
import { pendingApprovals } from './catalog';
import type { ApiPorts } from './ports';
import { notFound } from './reply';
import type { ConsoleView } from './view/console-view';

type Body<S extends z.ZodType> = z.infer<S>;

/** Starts a turn and answers with its ids at once: the run goes on, its events on the feed. */
export const startChat = (ports: Pick<ApiPorts, 'requester'>, body: Body<typeof apiV1.ChatBody>) =>
  ports.requester.request('conversation.send', {
    message: body.message,
    projectRoot: body.projectRoot,
    userMode: body.mode,
    reasoningEnabled: body.reasoning,
    ...(body.conversationId ? { conversationId: body.conversationId } : {}),
    ...(body.approve ? { approve: body.approve } : {}),
  });

export async function startWorkflow(
  ports: Pick<ApiPorts, 'requester'>,
  body: Body<typeof apiV1.WorkflowBody>,
): Promise<{ workflowRunId: string }> {
  const { workflowId } = await ports.requester.request('workflow.start', {
    goal: body.input,
    projectRoot: body.projectRoot,
    ...(body.templateId ? { workflow: body.templateId } : {}),
    ...(body.phases ? { phases: body.phases } : {}),
    reasoningEnabled: body.reasoning,
    approve: body.approve,
    ...(body.gates ? { gates: { afterPlanning: body.gates.afterPlanning ?? false, beforeMerge: body.gates.beforeMerge ?? false } } : {}),
  });
  return { workflowRunId: workflowId };
}

const known = (view: ConsoleView, runId: string) => {
  if (!entryOf(view.runs.runs, runId)) throw notFound(`run ${runId}`);
};

export async function cancelRun(view: ConsoleView, ports: Pick<ApiPorts, 'requester'>, runId: string, body: Body<typeof apiV1.CancelBody>) {
  known(view, runId);
  return ports.requester.request('run.cancel', { runId, by: 'user', reason: body.reason ?? '' });
}

export async function resumeRun(view: ConsoleView, ports: Pick<ApiPorts, 'requester'>, runId: string) {
  known(view, runId);
  const { run, resumed } = await ports.requester.request('conversation.run.resume', { runId, by: 'user' });
  return { runId, resumed, status: run.status };
}

/** Answers the approval by its id, whichever run or workflow waits for it; one nobody waits for is a 404. */
export async function answerApproval(
  view: ConsoleView,
  ports: Pick<ApiPorts, 'requester'>,
  approvalId: string,
  body: Body<typeof apiV1.ApprovalAnswerBody>,
) {
  const pending = pendingApprovals(view).find((a) => a.approvalId === approvalId);
  if (!pending) throw new StagecraftError('NOT_FOUND', `nothing waits for approval ${approvalId}`);
  const reply = await ports.requester.request('approval.answer', {
    id: pending.id,
    approvalId,
    decision: body.decision,
    reason: body.reason,
  });
  return { approvalId, target: reply.target, id: reply.id, decision: reply.decision };
}
