import {
  ChatMessage,
  EventData,
  EventType,
  StagecraftError,
  StagecraftEvent,
  eventDataSchemas,
  issuesFromZod,
  streams,
} from '@stagecraft/contracts';
import { ConcurrencyError } from '@stagecraft/event-store';
import { publishRunEvent } from '@stagecraft/messaging';
import { PendingEvent, RunState, evolveRun, initialRunState, toChatMessage } from '@stagecraft/run';
import { DriverPorts } from './driver-ports';

/**
 * One run's stream as this process sees it: folded state, the revision it was folded at, and the
 * only way to add to it. Every append is validated, checked against the expected revision and then
 * published on `run.<runId>.events` — published from what was stored, never separately.
 */
export class RunLog {
  private constructor(
    private readonly ports: DriverPorts,
    readonly runId: string,
    public state: RunState,
    private revision: bigint | null,
    private readonly correlationId: string,
  ) {}

  static async open(ports: DriverPorts, runId: string, correlationId?: string): Promise<RunLog> {
    const events = (await ports.store.readStream(streams.run(runId))) as unknown as (StagecraftEvent & { revision: bigint })[];
    const state = events.reduce<RunState>(evolveRun, initialRunState());
    const revision = events.length ? events[events.length - 1].revision : null;
    const correlation = correlationId ?? events[0]?.metadata.correlationId ?? runId;
    const log = new RunLog(ports, runId, state, revision, correlation);
    log.lastContextId = [...events].reverse().find((e) => e.type === 'StageEntered')?.metadata.contextId;
    const through = state.start?.historyThrough;
    if (state.start && through !== undefined) {
      const turns = await ports.store.readStream(streams.conversation(state.start.conversationId), { fromRevision: 0n, maxCount: through + 1 });
      log.usePrior(priorMessages(turns as unknown as StagecraftEvent[]));
    }
    return log;
  }

  /** The earlier turns of the conversation, which `RunStarted.historyThrough` refers to. */
  usePrior(prior: ChatMessage[]): void {
    this.state = { ...this.state, prior };
  }

  private lastContextId?: string;

  async append(events: PendingEvent[], causationId?: string): Promise<void> {
    if (events.length === 0) return;
    const conversationId = this.state.start?.conversationId ?? (events[0].type === 'RunStarted' ? events[0].data.conversationId : undefined);
    const occurredAt = this.ports.clock().toISOString();
    const full = events.map((e) => {
      if (e.type === 'StageEntered') this.lastContextId = e.data.contextId;
      const data = validate(e.type, e.data);
      const metadata = { runId: this.runId, conversationId, contextId: this.lastContextId, causationId, correlationId: this.correlationId, occurredAt };
      return { type: e.type, data, metadata } as StagecraftEvent;
    });
    try {
      const result = await this.ports.store.appendToStream(
        streams.run(this.runId),
        full.map((e) => ({ id: this.ports.newId(), ...e })),
        { expectedRevision: this.revision === null ? 'no_stream' : this.revision },
      );
      this.revision = result.nextExpectedRevision;
    } catch (error) {
      if (error instanceof ConcurrencyError) throw new StagecraftError('CONFLICT', `run ${this.runId} was changed by another writer`, [], { cause: error });
      throw error;
    }
    for (const event of full) {
      this.state = evolveRun(this.state, event);
      publishRunEvent(this.ports.bus, this.ports.prefix, event);
    }
  }
}

function validate<T extends EventType>(type: T, data: unknown): EventData<T> {
  const parsed = eventDataSchemas[type].safeParse(data);
  if (!parsed.success) throw new StagecraftError('INTERNAL', `the run produced an invalid ${type} event`, issuesFromZod(parsed.error));
  return parsed.data as EventData<T>;
}

/** A conversation stream's turns as chat messages, in order. */
export const priorMessages = (events: readonly StagecraftEvent[]): ChatMessage[] =>
  events.flatMap((e) => (e.type === 'MessageAppended' ? [toChatMessage(e.data)] : []));
