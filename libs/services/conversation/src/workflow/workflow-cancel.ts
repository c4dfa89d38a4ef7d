import { StagecraftError, WorkflowCancelReply, WorkflowCancelRequest, toErrorReply } from '@stagecraft/contracts';
import { withinProjectRoots } from '@stagecraft/contracts';
import { StartedWorkflow } from '@stagecraft/workflows';
import type { z } from 'zod';
import { DriverPorts } from '../driver-ports';
import { cancelRun } from '../run-cancel';
import { WorkflowLog } from './workflow-log';

/**
 * Cancels the runs of a cancelled workflow's agents that have not ended. Idempotent: a run that has
 * ended, or was never started, is left alone. Returns the agents' runs that are now cancelled (the
 * follow-up, which does the same on `WorkflowCancelled`, may have been first).
 */
export async function cancelAgentRuns(ports: DriverPorts, state: StartedWorkflow): Promise<string[]> {
  const why = state.status === 'cancelled' ? state.cancellation.reason : undefined;
  const reason = `workflow ${state.start.workflowId} was cancelled${why ? `: ${why}` : ''}`;
  const cancelled: string[] = [];
  for (const run of Object.values(state.runs)) {
    if (run.status !== 'dispatched') continue;
    try {
      const reply = await cancelRun(ports, { runId: run.runId, by: 'workflow', reason });
      if (reply.status === 'cancelled') cancelled.push(run.runId);
    } catch (error) {
      // A dispatched run that never started has nothing to stop: the workflow no longer starts it.
      if (toErrorReply(error).code !== 'NOT_FOUND') throw error;
    }
  }
  return cancelled;
}

/** `workflow.cancel`: appends `WorkflowCancelled`, then cancels the agents' runs that are still going. */
export async function cancelWorkflow(ports: DriverPorts, request: z.output<typeof WorkflowCancelRequest>): Promise<WorkflowCancelReply> {
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
