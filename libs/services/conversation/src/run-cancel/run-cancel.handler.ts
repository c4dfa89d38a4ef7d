import { RunCancelReply, RunCancelRequest, StagecraftError, toErrorReply, withinProjectRoots } from '@stagecraft/contracts';
import { publishRunCancelled } from '../cancel-notices';
import type { Conversation } from '../dependencies';
import type { DriverPorts } from '../driver-ports';
import { decideAndAppend } from '../effects';
import { RunKnowledge } from '../knowledge';
import { RunLog } from '../run-log';

/** Commits that may land between reading the run and appending its cancellation before this gives up. */
const MAX_ATTEMPTS = 5;

/** `run.cancel`: a person stops a run (a cancelled workflow stops its agents' runs with `cancelRun` too). */
export const runCancel = (request: RunCancelRequest, { ports }: Conversation): Promise<RunCancelReply> => cancelRun(ports, request);

/**
 * Appends `RunCancelled` (who, why) to a running run, then tells the replica driving it,
 * which cuts the step in flight short. A run that has ended stays as it ended: nothing is appended. The
 * driver may commit meanwhile (the append expects the revision read): the run is read again and the
 * cancellation decided again, a few times.
 */
export async function cancelRun(ports: DriverPorts, request: RunCancelRequest): Promise<RunCancelReply> {
  const { runId, by, reason } = request;
  for (let attempt = 1; ; attempt++) {
    const log = await RunLog.open(ports, runId);
    const { state } = log;
    // A run of a project this deployment does not serve is answered as one that does not exist.
    if (state.status === 'new' || !withinProjectRoots(state.start.projectRoot, ports.projectRoots))
      throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
    if (state.status !== 'running') return { runId, outcome: 'ended', status: state.status };
    try {
      await decideAndAppend(ports, log, { type: 'RunCancelled', by, reason, at: ports.clock().toISOString() }, new RunKnowledge(ports));
    } catch (error) {
      if (toErrorReply(error).code === 'CONFLICT' && attempt < MAX_ATTEMPTS) continue;
      throw error;
    }
    ports.logger.info({ runId, by }, 'run cancelled');
    publishRunCancelled(ports.bus, ports.prefix, runId);
    return { runId, outcome: 'cancelled', status: 'cancelled' };
  }
}
