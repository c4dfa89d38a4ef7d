import type { RunsListReply, RunsListRequest } from '@stagecraft/contracts';
import { listRunSummaries, runsModel } from '@stagecraft/read-models';
import type { MemoryDeps } from '../dependencies';
import { servedBy } from '../project-scope';

/** `runs.list`: the runs view, priced and judged stuck at the service's clock; only runs of the projects this deployment serves. */
export async function runsList({ minPosition, projectRoot, ...query }: RunsListRequest, deps: MemoryDeps): Promise<RunsListReply> {
  const served = servedBy(deps.projectRoots);
  const { position, state } = await deps.views.read(runsModel, minPosition);
  const reading = { prices: deps.config.prices, now: deps.clock(), idleMs: deps.config.stuckAfterMs };
  const visible = projectRoot === undefined ? served : (root: string | null) => root === projectRoot && served(root);
  return { runs: listRunSummaries(state, { ...query, visible }, reading), position: String(position) };
}
