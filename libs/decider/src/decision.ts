import { Decided } from './decider';

/**
 * The events of one decision as they are chosen, and the state they lead to: a rule that runs after
 * another reads the state as of the last event. Every decider builds its decision with this one
 * class and returns `events`.
 */
export class Decision<State, Event extends Decided> {
  readonly events: Event[] = [];

  constructor(
    public state: State,
    private readonly evolve: (state: State, event: Event) => State,
  ) {}

  add(event: Event): this {
    this.events.push(event);
    this.state = this.evolve(this.state, event);
    return this;
  }
}
