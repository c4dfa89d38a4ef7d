import type { RunResumeReply, RunResumeRequest } from '@stagecraft/contracts';
import type { Conversation } from '../dependencies';
import { decideAndAppend } from '../effects';
import { RunKnowledge } from '../knowledge';
import { RunLog } from '../run-log';
import { servedRun } from '../run-get/served-run';

/**
 * `conversation.run.resume`: drives an unfinished run on from its log, in this process, under the run's
 * lease: a run another replica drives already is left to it (the caller follows the feed either way).
 * An ended run, or one that waits for a person, is answered as it is, with nothing started.
 */
export async function runResume({ runId, by }: RunResumeRequest, { ports, registry }: Conversation): Promise<RunResumeReply> {
  let run = await servedRun(ports.store, ports.projectRoots, runId);
  if (run.status === 'cancelled') {
    // Taken up again where it was cancelled; the decider refuses a workflow's agent run.
    const log = await RunLog.open(ports, runId);
    await decideAndAppend(ports, log, { type: 'RunContinued', by, at: ports.clock().toISOString() }, new RunKnowledge(ports));
    run = await servedRun(ports.store, ports.projectRoots, runId);
  }
  if (run.status !== 'running' || run.pendingApproval) return { run, resumed: false };
  await registry.resume(runId);
  return { run, resumed: true };
}
