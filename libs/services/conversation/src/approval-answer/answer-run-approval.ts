import { ApprovalAnswerReply, ApprovalAnswerRequest, StagecraftError, withinProjectRoots } from '@stagecraft/contracts';
import type { DriverPorts } from '../driver-ports';
import { decideAndAppend } from '../effects';
import { RunKnowledge } from '../knowledge';
import { RunLog } from '../run-log';
import type { RunRegistry } from '../run-registry';

/**
 * A person's answer to what a run waits for: decided and appended as one commit, then the run is
 * driven on. An answer that finds nothing waiting (answered already, or never asked), or that names
 * another approval than the one waiting, is a conflict and appends nothing.
 */
export async function answerRunApproval(
  ports: DriverPorts,
  registry: Pick<RunRegistry, 'resume'>,
  request: ApprovalAnswerRequest,
): Promise<ApprovalAnswerReply> {
  const runId = request.id;
  const log = await RunLog.open(ports, runId);
  const state = log.state;
  // A run of a project this deployment does not serve is answered as one that does not exist.
  if (state.status === 'new' || !withinProjectRoots(state.start.projectRoot, ports.projectRoots))
    throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
  const pending = state.status === 'running' ? state.pendingApproval : null;
  if (!pending) throw new StagecraftError('CONFLICT', `run ${runId} waits for no approval`);
  const { approvalId, decision, reason } = request;
  // The decider refuses an approval id that is not the pending one, before anything is appended.
  await decideAndAppend(
    ports,
    log,
    { type: 'ApprovalAnswered', approvalId, decision, reason, at: ports.clock().toISOString() },
    new RunKnowledge(ports),
  );
  await registry.resume(runId);
  return { id: runId, target: 'run', approvalId, decision };
}
