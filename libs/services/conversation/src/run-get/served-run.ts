import { RunView, StagecraftError, runEvents, streams, withinProjectRoots } from '@stagecraft/contracts';
import { type EventReader, readEvents } from '@stagecraft/event-store';
import { foldRunView } from '@stagecraft/run';

/** A run as its log tells it; a run of a project this deployment does not serve is answered as one that does not exist. */
export async function servedRun(reader: EventReader, projectRoots: readonly string[] | undefined, runId: string): Promise<RunView> {
  const events = await readEvents(reader, streams.run(runId), runEvents);
  const [started] = events;
  const served =
    projectRoots === undefined || (started?.type === 'RunStarted' && withinProjectRoots(started.data.projectRoot, projectRoots));
  const run = served ? foldRunView(events) : null;
  if (!run) throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
  return run;
}
