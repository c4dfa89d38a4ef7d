import type { RunGetReply, RunGetRequest } from '@stagecraft/contracts';
import type { DriverPorts } from '../driver-ports';
import { servedRun } from './served-run';

/** `conversation.run.get`: a run as its log tells it. */
export const runGet = async (
  { runId }: RunGetRequest,
  { ports }: { ports: Pick<DriverPorts, 'store' | 'projectRoots'> },
): Promise<RunGetReply> => ({
  run: await servedRun(ports.store, ports.projectRoots, runId),
});
