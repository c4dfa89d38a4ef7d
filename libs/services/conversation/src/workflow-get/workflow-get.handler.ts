import { StagecraftError, WorkflowGetReply, WorkflowGetRequest, withinProjectRoots } from '@stagecraft/contracts';
import { workflowView } from '@stagecraft/workflows';
import type { DriverPorts } from '../driver-ports';
import { WorkflowLog } from '../workflow/workflow-log';

/** `workflow.get`: a workflow as its log tells it. */
export async function workflowGet(
  { workflowId }: WorkflowGetRequest,
  { ports }: { ports: Pick<DriverPorts, 'store' | 'clock' | 'newId' | 'projectRoots'> },
): Promise<WorkflowGetReply> {
  const log = await WorkflowLog.open(ports, workflowId);
  // A workflow of a project this deployment does not serve is answered as one that does not exist.
  if (log.state.status === 'new' || !withinProjectRoots(log.state.start.projectRoot, ports.projectRoots))
    throw new StagecraftError('NOT_FOUND', `no workflow ${workflowId}`);
  return workflowView(log.state);
}
