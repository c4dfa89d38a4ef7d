import { Decider, Decision, fold, needs, outcomeOf, spec } from './index';

/** A tally: `Add` adds while it stays under a limit the context names; without one it needs it. */
type Tally = { status: 'empty' } | { status: 'counting'; total: number };
type Added = { type: 'Added'; data: { n: number } };
type Add = { type: 'Add'; n: number };

const tally: Decider<Tally, Add, Added, { limit?: number }> = {
  initialState: () => ({ status: 'empty' }),
  evolve: (state, event) => ({ status: 'counting', total: (state.status === 'empty' ? 0 : state.total) + event.data.n }),
  decide(input, state, { limit }) {
    if (limit === undefined) return needs('limit');
    if (input.n <= 0) throw new RangeError('add a positive number');
    const decision = new Decision(state, tally.evolve);
    // One unit at a time: each rule reads the state as of the last event.
    for (let i = 0; i < input.n && (decision.state.status === 'empty' || decision.state.total < limit); i += 1)
      decision.add({ type: 'Added', data: { n: 1 } });
    return decision.events;
  },
};

const added = (n: number): Added => ({ type: 'Added', data: { n } });

describe('the decider kit', () => {
  it('folds events from the initial state', () => {
    expect(fold(tally, [added(2), added(3)])).toEqual({ status: 'counting', total: 5 });
  });

  it('given / when / then: the events decided, read against the state as of the last one', () => {
    spec(tally, { limit: 4 })
      .given([added(2)])
      .when({ type: 'Add', n: 5 })
      .then([added(1), added(1)]);
    expect(() => spec(tally, { limit: 4 }).given([]).when({ type: 'Add', n: 1 }).then([])).toThrow(
      /Expected values to be strictly deep-equal/,
    );
  });

  it('thenThrows and thenNeeds tell a refusal from a request for a fact', () => {
    spec(tally, { limit: 4 })
      .givenState({ status: 'empty' })
      .when({ type: 'Add', n: 0 })
      .thenThrows((error) => expect(error).toBeInstanceOf(RangeError));
    expect(spec(tally, {}).given([]).when({ type: 'Add', n: 1 }).thenNeeds('limit')).toBe('limit');
    expect(() => spec(tally, {}).given([]).when({ type: 'Add', n: 1 }).thenThrows()).toThrow(/needs "limit"/);
    expect(() => spec(tally, { limit: 1 }).given([]).when({ type: 'Add', n: 1 }).thenNeeds()).toThrow(/decided Added/);
  });

  it('outcomeOf turns a request for a fact into { needs } and lets other throws through', () => {
    expect(outcomeOf(() => tally.decide({ type: 'Add', n: 1 }, { status: 'empty' }, {}))).toEqual({ needs: 'limit' });
    expect(outcomeOf(() => tally.decide({ type: 'Add', n: 1 }, { status: 'empty' }, { limit: 3 }))).toEqual({ events: [added(1)] });
    expect(() => outcomeOf(() => tally.decide({ type: 'Add', n: -1 }, { status: 'empty' }, { limit: 3 }))).toThrow(RangeError);
  });
});
