import { ConversationEvent, StagecraftError, conversationEvents, runEvents, streams } from '@stagecraft/contracts';
import { EventReader, Recorded, appendDecided, readEvents } from '@stagecraft/event-store';
import { emptyHistory, evolveHistory, sourcedMessages } from '@stagecraft/read-models';
import { NO_PRIOR_TURNS, PendingEvent, PriorTurns, RunState, evolveRun, foldRun, withPrior } from '@stagecraft/run';
import { DriverPorts } from './driver-ports';

/**
 * One run's stream as this process sees it: the folded state, the revision it was folded at, and
 * the only way to add to it. Every append is validated and checked against the expected revision.
 * What follows a commit (the live feed, the conversation's turn) is done by the log processors.
 */
export class RunLog {
  /** Whether this process may still write the run (its lease); checked before every append. */
  private guard: () => boolean = () => true;

  private constructor(
    private readonly ports: DriverPorts,
    readonly runId: string,
    private folded: RunState,
    private revision: bigint | null,
    private readonly correlationId: string,
    /** The earlier turns of the conversation, which `RunStarted.historyThrough` refers to. */
    private prior: PriorTurns,
  ) {}

  static async open(ports: DriverPorts, runId: string, correlationId?: string): Promise<RunLog> {
    const events = await readEvents(ports.store, streams.run(runId), runEvents);
    const state = foldRun(events);
    const last = events.at(-1);
    const prior =
      state.status === 'new' ? NO_PRIOR_TURNS : await earlierTurns(ports.store, state.start.conversationId, state.start.historyThrough);
    return new RunLog(ports, runId, state, last ? last.revision : null, correlationId ?? events[0]?.metadata.correlationId ?? runId, prior);
  }

  get state(): RunState {
    return withPrior(this.folded, this.prior);
  }

  guardWith(mayWrite: () => boolean): void {
    this.guard = mayWrite;
  }

  /** This log when nothing was appended to the run since it was read; otherwise the run read again. */
  async caughtUp(): Promise<RunLog> {
    const from = this.revision === null ? 0n : this.revision + 1n;
    const newer = await this.ports.store.readStream(streams.run(this.runId), { fromRevision: from, maxCount: 1 });
    return newer.length === 0 ? this : RunLog.open(this.ports, this.runId, this.correlationId);
  }

  /** Whether another writer has appended to the run since this process last read or wrote it. */
  async changedElsewhere(): Promise<boolean> {
    const from = this.revision === null ? 0n : this.revision + 1n;
    const newer = await this.ports.store.readStream(streams.run(this.runId), { fromRevision: from, maxCount: 1 });
    return newer.length > 0;
  }

  /** Reads the run again in place (its lease guard stays): after another writer (`run.cancel`) appended to it. */
  async reload(): Promise<void> {
    const events = await readEvents(this.ports.store, streams.run(this.runId), runEvents);
    this.folded = foldRun(events);
    this.revision = events.at(-1)?.revision ?? null;
  }

  /** For a run about to start: the conversation's turns so far. */
  usePrior(prior: PriorTurns): void {
    this.prior = prior;
  }

  /**
   * Appends a decision as one commit at the revision this log was read at: validated against the
   * events' contracts; another writer in between is a `CONFLICT` and nothing is appended.
   */
  async append(events: readonly PendingEvent[], causationId?: string): Promise<void> {
    if (events.length === 0) return;
    const start = this.folded.status === 'new' ? (events[0].type === 'RunStarted' ? events[0].data : undefined) : this.folded.start;
    const occurredAt = this.ports.clock().toISOString();
    // Every event of the commit names the revision it begins at: a fork point must end a commit.
    const commitStart = this.revision === null ? 0 : Number(this.revision) + 1;
    if (!this.guard()) throw new StagecraftError('CONFLICT', `run ${this.runId}: this replica no longer holds the run's lease`);
    // Which replica wrote the commit, where several may (docs/decisions/0026), on the commit's first
    // event only: the commit is one append, so one writer. Readers' schemas drop it.
    const writerOf = (i: number) => (this.ports.writer === undefined || i > 0 ? {} : { writer: this.ports.writer });
    this.revision = await appendDecided(this.ports.store, streams.run(this.runId), events, {
      what: `run ${this.runId}`,
      expectedRevision: this.revision ?? 'no_stream',
      newId: () => this.ports.newId(),
      // The stream names the run; only `RunStarted` names the conversation and the correlation, and only
      // `StageEntered` (in its data) the context: the events after them do not repeat these (docs/decisions/0018).
      metadata: (e, i) =>
        e.type === 'RunStarted'
          ? {
              conversationId: start?.conversationId,
              causationId,
              commitStart,
              correlationId: this.correlationId,
              occurredAt,
              ...writerOf(i),
            }
          : { causationId, commitStart, occurredAt, ...writerOf(i) },
    });
    this.folded = events.reduce(evolveRun, this.folded);
    this.ports.afterCommit?.(events.map((e) => e.type));
  }
}

/** A conversation's turns up to a revision: its latest summary and the turns after it. */
export async function earlierTurns(reader: EventReader, conversationId: string, through?: number): Promise<PriorTurns> {
  if (through === undefined) return NO_PRIOR_TURNS;
  return turnsOf(
    conversationId,
    await readEvents(reader, streams.conversation(conversationId), conversationEvents, { fromRevision: 0n, maxCount: through + 1 }),
  );
}

/** The conversation's compressed history (the same fold as the memory service's view), as a run's earlier turns. */
export function turnsOf(conversationId: string, events: readonly Recorded<ConversationEvent>[]): PriorTurns {
  const history = events.reduce(evolveHistory, emptyHistory(conversationId));
  return { summary: history.summary, messages: sourcedMessages(history, streams.conversation(conversationId)) };
}
