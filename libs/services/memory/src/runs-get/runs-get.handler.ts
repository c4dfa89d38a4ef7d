import type { RunsGetReply, RunsGetRequest } from '@stagecraft/contracts';
import { rootOfRun, runOf, runsModel, summarize } from '@stagecraft/read-models';
import type { MemoryDeps } from '../dependencies';
import { servedBy } from '../project-scope';

/** `runs.get`: one run of the runs view, priced and judged stuck at the service's clock; a run of a project not served is unknown. */
export async function runsGet(
  { runId, minPosition }: RunsGetRequest,
  { views, config, clock, projectRoots }: MemoryDeps,
): Promise<RunsGetReply> {
  const { position, state } = await views.read(runsModel, minPosition);
  const run = servedBy(projectRoots)(rootOfRun(state, runId)) ? runOf(state, runId) : null;
  const idleness = { now: clock(), idleMs: config.stuckAfterMs };
  return { run: run && summarize(run, config.prices, idleness), position: String(position) };
}
