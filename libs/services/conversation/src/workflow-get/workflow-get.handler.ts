import { StagecraftError, WorkflowGetReply, WorkflowGetRequest, withinProjectRoots } from '@stagecraft/contracts';
import { workflowView } from '@stagecraft/workflows';
import type { DriverPorts } from '../driver-ports';
import { servedRun } from '../run-get/served-run';
import { WorkflowLog } from '../workflow/workflow-log';

/**
 * `workflow.get`: a workflow as its log tells it, with the tool approvals its working agents' runs wait
 * for (those are in the runs' logs, not the workflow's), so a person following the workflow sees them.
 */
export async function workflowGet(
  { workflowId }: WorkflowGetRequest,
  { ports }: { ports: Pick<DriverPorts, 'store' | 'clock' | 'newId' | 'projectRoots'> },
): Promise<WorkflowGetReply> {
  const log = await WorkflowLog.open(ports, workflowId);
  // A workflow of a project this deployment does not serve is answered as one that does not exist.
  if (log.state.status === 'new' || !withinProjectRoots(log.state.start.projectRoot, ports.projectRoots))
    throw new StagecraftError('NOT_FOUND', `no workflow ${workflowId}`);
  const view = workflowView(log.state);
  const phases = await Promise.all(
    view.phases.map(async (phase) => ({
      ...phase,
      agents: await Promise.all(
        phase.agents.map(async (agent) => {
          if (agent.status !== 'dispatched') return agent;
          // An agent whose run has not started yet waits for nothing.
          const run = await servedRun(ports.store, undefined, agent.runId).catch(() => null);
          return run?.pendingApproval ? { ...agent, pendingApproval: run.pendingApproval } : agent;
        }),
      ),
    })),
  );
  return { ...view, phases };
}
