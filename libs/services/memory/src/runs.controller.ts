import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RunsGetReply, RunsGetRequest, RunsListReply, RunsListRequest } from '@stagecraft/contracts';
import { listRunSummaries, runOf, runsModel, summarize } from '@stagecraft/read-models';
import { CLOCK, Handles } from '@stagecraft/service-shell';
import type { Clock } from '@stagecraft/service-shell';
import type { MemoryConfig } from './config';
import { MEMORY_CONFIG, MEMORY_VIEWS } from './tokens';
import type { MemoryViews } from './views/memory-views';

/** `runs.list` and `runs.get`: the runs view, priced and judged stuck when asked, at the service's clock. */
@Controller()
export class RunsController {
  constructor(
    @Inject(MEMORY_VIEWS) private readonly views: MemoryViews,
    @Inject(MEMORY_CONFIG) private readonly config: MemoryConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Handles('runs.list')
  async list(@Payload() { minPosition, ...query }: RunsListRequest): Promise<RunsListReply> {
    const { position, state } = await this.views.read(runsModel, minPosition);
    const reading = { prices: this.config.prices, now: this.clock(), idleMs: this.config.stuckAfterMs };
    return { runs: listRunSummaries(state, query, reading), position: String(position) };
  }

  @Handles('runs.get')
  async get(@Payload() { runId, minPosition }: RunsGetRequest): Promise<RunsGetReply> {
    const { position, state } = await this.views.read(runsModel, minPosition);
    const run = runOf(state, runId);
    const idleness = { now: this.clock(), idleMs: this.config.stuckAfterMs };
    return { run: run && summarize(run, this.config.prices, idleness), position: String(position) };
  }
}
