/**
 * A decision that cannot be made without a fact another service knows (a policy table, a recovery
 * prompt). Thrown from inside `decide`, where the rules are; the stream handler hands it to the
 * shell, which fetches the fact and decides again with it in the context.
 */
export class Needed<Need> extends Error {
  constructor(readonly need: Need) {
    super('the decision needs a fact it was not given');
    this.name = 'Needed';
  }
}

export function needs<Need>(need: Need): never {
  throw new Needed(need);
}

/** The events of a decision, or the fact it needs first. */
export type Outcome<Event, Need> = { events: readonly Event[] } | { needs: Need };

/** Runs a decision and turns a `Needed` into `{ needs }`; any other throw passes through. */
export function outcomeOf<Event, Need>(decide: () => readonly Event[]): Outcome<Event, Need> {
  try {
    return { events: decide() };
  } catch (error) {
    if (error instanceof Needed) return { needs: error.need as Need };
    throw error;
  }
}
