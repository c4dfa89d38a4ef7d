import { deepStrictEqual, fail } from 'node:assert/strict';
import { Decided, Decider } from './decider';
import { Needed } from './needed';

/** As JSON would carry it: an absent property and one set to `undefined` compare equal. */
const plain = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

export interface When<Event, Need> {
  /** Asserts the decision's events and returns them. */
  then(expected: readonly Event[]): readonly Event[];
  /** Asserts that the decision throws; `check` may look at what was thrown. */
  thenThrows(check?: (error: unknown) => void): unknown;
  /** Asserts that the decision asks for a fact first (`needs`), and returns it. */
  thenNeeds(expected?: Need): Need;
  /** The events, for assertions the three above cannot say. */
  events(): readonly Event[];
}

/**
 * Given / when / then for any decider: `given` the events already in the stream (or a state), `when`
 * an input arrives, `then` these events, or a throw, or a request for a fact.
 *
 *     spec(runDecider, context).given(started).when(answered).then([...])
 */
export function spec<State, Input, Event extends Decided, Context, Need = unknown>(
  decider: Decider<State, Input, Event, Context>,
  context: Context,
) {
  const whenIn = (state: State) => ({
    when(input: Input): When<Event, Need> {
      const decide = () => decider.decide(input, state, context);
      return {
        then(expected) {
          const events = decide();
          deepStrictEqual(plain(events), plain(expected));
          return events;
        },
        thenThrows(check) {
          try {
            decide();
          } catch (error) {
            if (error instanceof Needed) fail(`expected a throw, but the decision needs ${JSON.stringify(error.need)}`);
            check?.(error);
            return error;
          }
          return fail('expected the decision to throw, but it decided');
        },
        thenNeeds(expected) {
          try {
            const events = decide();
            return fail(`expected the decision to need a fact, but it decided ${events.map((e) => e.type).join(', ') || 'nothing'}`);
          } catch (error) {
            if (!(error instanceof Needed)) throw error;
            if (expected !== undefined) deepStrictEqual(plain(error.need), plain(expected));
            return error.need as Need;
          }
        },
        events: decide,
      };
    },
  });
  return {
    given: (events: readonly Event[]) => whenIn(events.reduce(decider.evolve, decider.initialState())),
    givenState: (state: State) => whenIn(state),
  };
}
