import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RunGetReply, RunGetRequest, StagecraftError, runEvents, streams } from '@stagecraft/contracts';
import { type EventReader, readEvents } from '@stagecraft/event-store';
import { foldRunView } from '@stagecraft/run';
import { EVENT_READER, Handles } from '@stagecraft/service-shell';

@Controller()
export class RunController {
  constructor(@Inject(EVENT_READER) private readonly reader: EventReader) {}

  @Handles('conversation.run.get')
  async get(@Payload() { runId }: RunGetRequest): Promise<RunGetReply> {
    const run = foldRunView(await readEvents(this.reader, streams.run(runId), runEvents));
    if (!run) throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
    return { run };
  }
}
