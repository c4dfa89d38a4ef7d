import { RunEvent, RunForkPoint, StagecraftError } from '@stagecraft/contracts';
import type { NewEvent } from '@stagecraft/event-store';
import { foldRun } from '@stagecraft/run';

type StoredRunEvent = RunEvent & { revision: bigint };

/** The first and last revision (inclusive) of one commit of a run's stream. */
export interface Commit {
  first: number;
  last: number;
}

/**
 * What events appended together share: the revision their append began at. Logs written before it
 * was recorded fall back to what one append also shares, its time and its cause.
 */
const commitKey = ({ metadata }: StoredRunEvent): string =>
  metadata.commitStart !== undefined ? `#${metadata.commitStart}` : `${metadata.occurredAt} ${metadata.causationId ?? ''}`;

/** A run's stream cut into its commits, in order. */
export function commitsOf(events: readonly StoredRunEvent[]): Commit[] {
  const commits: Commit[] = [];
  events.forEach((event, i) => {
    const revision = Number(event.revision);
    const open = commits.at(-1);
    if (open && commitKey(events[i - 1]) === commitKey(event)) open.last = revision;
    else commits.push({ first: revision, last: revision });
  });
  return commits;
}

const invalid = (message: string) => new StagecraftError('VALIDATION', message, [{ path: ['atRevision'], message }]);

/**
 * The events a fork of `runId` at `atRevision` copies, once the point is known to be one the decider
 * can go on from: the end of a commit of a run that has started and not yet ended.
 */
export function forkHead<E extends StoredRunEvent>(
  events: readonly E[],
  runId: string,
  atRevision: number,
): { head: E[]; conversationId: string } {
  const last = events.at(-1);
  if (!last) throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
  if (atRevision > Number(last.revision)) throw invalid(`run ${runId} ends at revision ${last.revision}; ${atRevision} is beyond it`);
  const commit = commitsOf(events).find((c) => c.first <= atRevision && atRevision <= c.last);
  if (commit && commit.last !== atRevision) {
    const ends = commit.first > 0 ? `${commit.first - 1} or ${commit.last}` : `${commit.last}`;
    throw invalid(
      `revision ${atRevision} of run ${runId} is inside the commit of revisions ${commit.first}..${commit.last}; the nearest commit ends are ${ends}`,
    );
  }
  const head = events.filter((e) => Number(e.revision) <= atRevision);
  const state = foldRun(head);
  if (state.status === 'new') throw invalid(`run ${runId} has not started at revision ${atRevision}`);
  if (state.status !== 'running') throw invalid(`run ${runId} has ${state.status} at revision ${atRevision}; fork before its end`);
  return { head, conversationId: state.start.conversationId };
}

/** The head as the new run's first events: new ids, the new run's id, and where it came from. */
export function forkCopies(
  head: readonly StoredRunEvent[],
  forkedFrom: RunForkPoint,
  runId: string,
  correlationId: string,
  newId: () => string,
): NewEvent[] {
  return head.map((event) => ({
    id: newId(),
    type: event.type,
    data: event.type === 'RunStarted' ? { ...event.data, runId, forkedFrom } : event.data,
    // The correlation is the fork request's, wherever the copied event names one.
    metadata: { ...event.metadata, runId, ...(event.metadata.correlationId === undefined ? {} : { correlationId }) },
  }));
}
