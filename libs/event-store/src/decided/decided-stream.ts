import type { EventFamily, EventSchemas, EventUnion } from '@stagecraft/contracts';
import { Decided, Decider, Outcome, outcomeOf } from '@stagecraft/decider';
import type { EventReader, EventStore } from '../port';
import { Recorded, readEvents } from '../read-events';
import { appendDecided } from './append-decided';

export interface StreamPorts {
  store: Pick<EventStore, 'appendToStream'> & EventReader;
  clock(): Date;
  newId(): string;
}

export interface DecidedStreamOptions<Event extends Decided> {
  /** What the stream holds, for messages: `run 1234`. */
  what: string;
  /** The metadata of the commit's `index`-th event, given when it was written. */
  metadata?(event: Event, index: number, occurredAt: string): Record<string, unknown>;
}

/**
 * The one stream handler: read a stream, fold it with its decider, decide on an input, validate the
 * events and append them at the revision that was read; a writer in between is a `CONFLICT`.
 * What the decision needs first comes back as `{ needs }` and nothing is appended.
 */
export class DecidedStream<
  State,
  Input,
  Event extends Decided & Pick<EventUnion<S>, 'type' | 'data'>,
  Context,
  S extends EventSchemas = EventSchemas,
> {
  private constructor(
    private readonly ports: StreamPorts,
    private readonly decider: Decider<State, Input, Event, Context>,
    readonly stream: string,
    private readonly options: DecidedStreamOptions<Event>,
    private folded: State,
    private revision: bigint | null,
  ) {}

  static async open<State, Input, Event extends Decided & Pick<EventUnion<S>, 'type' | 'data'>, Context, S extends EventSchemas>(
    ports: StreamPorts,
    decider: Decider<State, Input, Event, Context>,
    family: EventFamily<S>,
    stream: string,
    options: DecidedStreamOptions<Event>,
  ): Promise<DecidedStream<State, Input, Event, Context, S>> {
    const events: Recorded<EventUnion<S>>[] = await readEvents(ports.store, stream, family);
    const state = events.reduce((s, e) => decider.evolve(s, e as unknown as Event), decider.initialState());
    return new DecidedStream(ports, decider, stream, options, state, events.at(-1)?.revision ?? null);
  }

  get state(): State {
    return this.folded;
  }

  /** Decides on one input and appends what was decided as one commit. */
  async handle<Need = never>(input: Input, context: Context): Promise<Outcome<Event, Need>> {
    const outcome = outcomeOf<Event, Need>(() => this.decider.decide(input, this.folded, context));
    if ('events' in outcome) await this.append(outcome.events);
    return outcome;
  }

  /** Appends events already decided (validated, at the expected revision) and folds them in. */
  async append(events: readonly Event[]): Promise<void> {
    if (events.length === 0) return;
    const occurredAt = this.ports.clock().toISOString();
    this.revision = await appendDecided(this.ports.store, this.stream, events, {
      what: this.options.what,
      expectedRevision: this.revision ?? 'no_stream',
      newId: this.ports.newId,
      metadata: (event, i) => this.options.metadata?.(event, i, occurredAt) ?? { occurredAt },
    });
    this.folded = events.reduce(this.decider.evolve, this.folded);
  }
}
