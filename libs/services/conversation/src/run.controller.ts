import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RunGetReply, RunGetRequest, StagecraftError, runEvents, streams } from '@stagecraft/contracts';
import { type EventReader, readEvents } from '@stagecraft/event-store';
import { withinProjectRoots } from '@stagecraft/memory';
import { foldRunView } from '@stagecraft/run';
import { EVENT_READER, Handles, SHELL_CONFIG } from '@stagecraft/service-shell';
import type { ShellPorts } from '@stagecraft/service-shell';

@Controller()
export class RunController {
  constructor(
    @Inject(EVENT_READER) private readonly reader: EventReader,
    @Inject(SHELL_CONFIG) private readonly shell: Pick<ShellPorts, 'projectRoots'>,
  ) {}

  /** A run of a project this deployment does not serve is answered as one that does not exist. */
  @Handles('conversation.run.get')
  async get(@Payload() { runId }: RunGetRequest): Promise<RunGetReply> {
    const events = await readEvents(this.reader, streams.run(runId), runEvents);
    const [started] = events;
    const roots = this.shell.projectRoots;
    const served = roots === undefined || (started?.type === 'RunStarted' && withinProjectRoots(started.data.projectRoot, roots));
    const run = served ? foldRunView(events) : null;
    if (!run) throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
    return { run };
  }
}
