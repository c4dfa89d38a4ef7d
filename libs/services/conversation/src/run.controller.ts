import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RunGetReply, RunGetRequest, StagecraftError, StagecraftEvent, streams } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { foldRunView } from '@stagecraft/run';
import { EVENT_STORE, Handles } from '@stagecraft/service-shell';

@Controller()
export class RunController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  @Handles('conversation.run.get')
  async get(@Payload() { runId }: RunGetRequest): Promise<RunGetReply> {
    const events = await this.store.readStream(streams.run(runId));
    const run = foldRunView(events as unknown as StagecraftEvent[]);
    if (!run) throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
    return { run };
  }
}
