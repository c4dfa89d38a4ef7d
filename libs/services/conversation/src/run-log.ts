import {
  ChatMessage,
  ConversationEvent,
  EventData,
  EventType,
  StagecraftError,
  conversationEvents,
  eventDataSchemas,
  issuesFromZod,
  runEvents,
  streams,
} from '@stagecraft/contracts';
import { ConcurrencyError, EventReader, readEvents } from '@stagecraft/event-store';
import { PendingEvent, RunState, evolveRun, foldRun, toChatMessage } from '@stagecraft/run';
import { DriverPorts } from './driver-ports';

/**
 * One run's stream as this process sees it: the folded state, the revision it was folded at, and
 * the only way to add to it. Every append is validated and checked against the expected revision.
 * What follows a commit (the live feed, the conversation's turn) is done by the log processors.
 */
export class RunLog {
  private constructor(
    private readonly ports: DriverPorts,
    readonly runId: string,
    private folded: RunState,
    private revision: bigint | null,
    private readonly correlationId: string,
    private contextId: string | undefined,
    /** The earlier turns of the conversation, which `RunStarted.historyThrough` refers to. */
    private prior: readonly ChatMessage[],
  ) {}

  static async open(ports: DriverPorts, runId: string, correlationId?: string): Promise<RunLog> {
    const events = await readEvents(ports.store, streams.run(runId), runEvents);
    const state = foldRun(events);
    const last = events.at(-1);
    const contextId = events.findLast((e) => e.type === 'StageEntered')?.metadata.contextId;
    const prior = state.status === 'new' ? [] : await earlierTurns(ports.store, state.start.conversationId, state.start.historyThrough);
    return new RunLog(
      ports,
      runId,
      state,
      last ? last.revision : null,
      correlationId ?? events[0]?.metadata.correlationId ?? runId,
      contextId,
      prior,
    );
  }

  get state(): RunState {
    return this.folded.status === 'new' ? this.folded : { ...this.folded, prior: this.prior };
  }

  /** For a run about to start: the conversation's turns so far. */
  usePrior(prior: readonly ChatMessage[]): void {
    this.prior = prior;
  }

  async append(events: PendingEvent[], causationId?: string): Promise<void> {
    if (events.length === 0) return;
    const start = this.folded.status === 'new' ? (events[0].type === 'RunStarted' ? events[0].data : undefined) : this.folded.start;
    const occurredAt = this.ports.clock().toISOString();
    let contextId = this.contextId;
    const stored = events.map((e) => {
      if (e.type === 'StageEntered') contextId = e.data.contextId;
      const metadata = {
        runId: this.runId,
        conversationId: start?.conversationId,
        contextId,
        causationId,
        correlationId: this.correlationId,
        occurredAt,
      };
      return { id: this.ports.newId(), type: e.type, data: validate(e.type, e.data), metadata };
    });
    try {
      const result = await this.ports.store.appendToStream(streams.run(this.runId), stored, {
        expectedRevision: this.revision ?? 'no_stream',
      });
      this.revision = result.nextExpectedRevision;
    } catch (error) {
      if (error instanceof ConcurrencyError)
        throw new StagecraftError('CONFLICT', `run ${this.runId} was changed by another writer`, [], { cause: error });
      throw error;
    }
    this.contextId = contextId;
    this.folded = events.reduce(evolveRun, this.folded);
    this.ports.afterCommit?.(events.map((e) => e.type));
  }
}

function validate<T extends EventType>(type: T, data: unknown): EventData<T> {
  const parsed = eventDataSchemas[type].safeParse(data);
  if (!parsed.success) throw new StagecraftError('INTERNAL', `the run produced an invalid ${type} event`, issuesFromZod(parsed.error));
  return parsed.data as EventData<T>;
}

/** A conversation's turns up to a revision, as chat messages in order. */
export async function earlierTurns(reader: EventReader, conversationId: string, through?: number): Promise<ChatMessage[]> {
  if (through === undefined) return [];
  return turnsOf(
    await readEvents(reader, streams.conversation(conversationId), conversationEvents, { fromRevision: 0n, maxCount: through + 1 }),
  );
}

export const turnsOf = (events: readonly ConversationEvent[]): ChatMessage[] =>
  events.flatMap((e) => (e.type === 'MessageAppended' ? [toChatMessage(e.data)] : []));
