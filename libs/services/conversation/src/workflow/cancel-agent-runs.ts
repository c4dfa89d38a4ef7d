import { toErrorReply } from '@stagecraft/contracts';
import type { StartedWorkflow } from '@stagecraft/workflows';
import type { DriverPorts } from '../driver-ports';
import { cancelRun } from '../run-cancel/run-cancel.handler';

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
