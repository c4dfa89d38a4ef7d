import {
  RunGetReply,
  RunGetRequest,
  RunResumeReply,
  RunResumeRequest,
  RunView,
  StagecraftError,
  runEvents,
  streams,
} from '@stagecraft/contracts';
import { type EventReader, readEvents } from '@stagecraft/event-store';
import { withinProjectRoots } from '@stagecraft/contracts';
import { foldRunView } from '@stagecraft/run';
import type { ShellPorts } from '@stagecraft/service-shell';
import type { DriverPorts } from './driver-ports';
import { decideAndAppend } from './effects';
import { RunKnowledge } from './knowledge';
import { RunLog } from './run-log';
import type { RunRegistry } from './run-registry';

/** `conversation.run.get` and `conversation.run.resume`: a run as its log tells it, and taking it up again. */
export class RunHandlers {
  constructor(
    private readonly reader: EventReader,
    private readonly shell: Pick<ShellPorts, 'projectRoots'>,
    private readonly registry: RunRegistry,
    private readonly ports: DriverPorts,
  ) {}

  async get({ runId }: RunGetRequest): Promise<RunGetReply> {
    return { run: await this.servedRun(runId) };
  }

  /**
   * Drives an unfinished run on from its log, in this process, under the run's lease: a run another
   * replica drives already is left to it (the caller follows the feed either way). An ended run, or one
   * that waits for a person, is answered as it is, with nothing started.
   */
  async resume({ runId, by }: RunResumeRequest): Promise<RunResumeReply> {
    let run = await this.servedRun(runId);
    if (run.status === 'cancelled') {
      // Taken up again where it was cancelled; the decider refuses a workflow's agent run.
      const log = await RunLog.open(this.ports, runId);
      await decideAndAppend(
        this.ports,
        log,
        { type: 'RunContinued', by, at: this.ports.clock().toISOString() },
        new RunKnowledge(this.ports),
      );
      run = await this.servedRun(runId);
    }
    if (run.status !== 'running' || run.pendingApproval) return { run, resumed: false };
    await this.registry.resume(runId);
    return { run, resumed: true };
  }

  /** A run of a project this deployment does not serve is answered as one that does not exist. */
  private async servedRun(runId: string): Promise<RunView> {
    const events = await readEvents(this.reader, streams.run(runId), runEvents);
    const [started] = events;
    const roots = this.shell.projectRoots;
    const served = roots === undefined || (started?.type === 'RunStarted' && withinProjectRoots(started.data.projectRoot, roots));
    const run = served ? foldRunView(events) : null;
    if (!run) throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
    return run;
  }
}
