/** An event a decider chose, before the shell gives it an id, metadata and a place in a stream. */
export interface Decided {
  type: string;
  data: unknown;
}

/**
 * The one shape of every decider: the state before any event, how an event changes a state, and
 * what an input means in a state. `decide` is pure: the same input, state and context always give
 * the same events. An input that does not fit the state throws; an input that needs a fact only
 * another service knows throws `Needed` (see `needs`), and the shell fetches it and decides again.
 */
export interface Decider<State, Input, Event extends Decided, Context = void> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(input: Input, state: State, context: Context): readonly Event[];
}

/** The state a decider reaches from its initial state through `events`. */
export const fold = <State, Event extends Decided>(
  decider: Pick<Decider<State, never, Event, never>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State => events.reduce(decider.evolve, decider.initialState());
