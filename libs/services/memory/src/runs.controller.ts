import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RunsGetReply, RunsGetRequest, RunsListReply, RunsListRequest } from '@stagecraft/contracts';
import { listRunSummaries, rootOfRun, runOf, runsModel, summarize } from '@stagecraft/read-models';
import { CLOCK, Handles, SHELL_CONFIG } from '@stagecraft/service-shell';
import type { Clock, ShellPorts } from '@stagecraft/service-shell';
import type { MemoryConfig } from './config';
import { servedBy } from './project-scope';
import { MEMORY_CONFIG, MEMORY_VIEWS } from './tokens';
import type { MemoryViews } from './views/memory-views';

/**
 * `runs.list` and `runs.get`: the runs view, priced and judged stuck when asked, at the service's clock.
 * Only runs of the projects this deployment serves are listed; any other run is answered as unknown.
 */
@Controller()
export class RunsController {
  private readonly served: (projectRoot: string | null) => boolean;

  constructor(
    @Inject(MEMORY_VIEWS) private readonly views: MemoryViews,
    @Inject(MEMORY_CONFIG) private readonly config: MemoryConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SHELL_CONFIG) shell: Pick<ShellPorts, 'projectRoots'>,
  ) {
    this.served = servedBy(shell.projectRoots);
  }

  @Handles('runs.list')
  async list(@Payload() { minPosition, projectRoot, ...query }: RunsListRequest): Promise<RunsListReply> {
    const { position, state } = await this.views.read(runsModel, minPosition);
    const reading = { prices: this.config.prices, now: this.clock(), idleMs: this.config.stuckAfterMs };
    const visible = projectRoot === undefined ? this.served : (root: string | null) => root === projectRoot && this.served(root);
    return { runs: listRunSummaries(state, { ...query, visible }, reading), position: String(position) };
  }

  @Handles('runs.get')
  async get(@Payload() { runId, minPosition }: RunsGetRequest): Promise<RunsGetReply> {
    const { position, state } = await this.views.read(runsModel, minPosition);
    const run = this.served(rootOfRun(state, runId)) ? runOf(state, runId) : null;
    const idleness = { now: this.clock(), idleMs: this.config.stuckAfterMs };
    return { run: run && summarize(run, this.config.prices, idleness), position: String(position) };
  }
}
