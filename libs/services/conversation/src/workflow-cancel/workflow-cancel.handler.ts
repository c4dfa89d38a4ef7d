import { ParsedRequestOf, StagecraftError, WorkflowCancelReply, withinProjectRoots } from '@stagecraft/contracts';
import type { StartedWorkflow } from '@stagecraft/workflows';
import type { Conversation } from '../dependencies';
import { cancelAgentRuns } from '../workflow/cancel-agent-runs';
import { WorkflowLog } from '../workflow/workflow-log';

/** `workflow.cancel`: appends `WorkflowCancelled`, then cancels the agents' runs that are still going. */
export async function workflowCancel(request: ParsedRequestOf<'workflow.cancel'>, { ports }: Conversation): Promise<WorkflowCancelReply> {
  const { workflowId, by, reason } = request;
  const log = await WorkflowLog.open(ports, workflowId);
  const state = log.state;
  if (state.status === 'new' || !withinProjectRoots(state.start.projectRoot, ports.projectRoots))
    throw new StagecraftError('NOT_FOUND', `no workflow ${workflowId}`);
  const events = await log.decide({ type: 'WorkflowCancelRequested', by, reason, at: ports.clock().toISOString() });
  if (events.length === 0) return { workflowId, outcome: 'ended', status: state.status, cancelledRuns: [] };
  ports.logger.info({ workflowId }, 'workflow cancelled');
  const cancelledRuns = await cancelAgentRuns(ports, log.state as StartedWorkflow);
  return { workflowId, outcome: 'cancelled', status: 'cancelled', cancelledRuns };
}
