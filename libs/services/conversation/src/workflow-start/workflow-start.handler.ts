import { ParsedRequestOf, StagecraftError, WorkflowStartReply } from '@stagecraft/contracts';
import { checkProjectRoot } from '@stagecraft/tools';
import type { ParsedWorkflowStart } from '@stagecraft/workflows';
import type { Conversation } from '../dependencies';
import { takeSnapshot } from '../workflow/snapshot';
import { WorkflowLog } from '../workflow/workflow-log';
import { isolationFor } from '../workflow/worktrees';
import { stepsOf } from './steps-of';

/** `workflow.start`: starts a workflow and answers at once with its id; its agents are dispatched from the log. */
export async function workflowStart(request: ParsedRequestOf<'workflow.start'>, { ports }: Conversation): Promise<WorkflowStartReply> {
  const projectRoot = await checkProjectRoot(request.projectRoot, ports.projectRoots);
  const workflowId = request.workflowId ?? ports.newId();
  const [log, steps, isolation] = await Promise.all([
    WorkflowLog.open(ports, workflowId),
    request.workflow ? stepsOf(ports.requester, request.workflow) : Promise.resolve(undefined),
    isolationFor(projectRoot),
  ]);
  if (log.state.status !== 'new') throw new StagecraftError('CONFLICT', `workflow ${workflowId} already exists`);
  // Ticket work starts from the working tree as the user has it now, and merges back against it.
  const ticketsPhase = !steps && (request.phases ?? []).includes('tickets');
  const snapshot = ticketsPhase ? await takeSnapshot(projectRoot, isolation) : undefined;
  await log.decide({
    type: 'WorkflowRequested',
    workflowId,
    request: request as ParsedWorkflowStart,
    projectRoot,
    isolation,
    ...(steps ? { steps } : {}),
    ...(snapshot ? { snapshot } : {}),
    at: ports.clock().toISOString(),
  });
  return { workflowId };
}
