/**
 * The lease rules of a conversation replica, as plain functions of what it knows: the last renewal
 * it saw succeed, what the store answered, and the clock. The store (NATS KV) enforces exclusion;
 * these decide when a holder must consider itself no longer the owner and what a sweep should try.
 */

export type LeaseState = { kind: 'held'; revision: number; renewedAt: number } | { kind: 'lost'; reason: 'taken' | 'expired' };

/** What one renewal attempt got from the store. */
export type RenewalOutcome =
  | { kind: 'renewed'; revision: number }
  /** The store refused the revision: the lease expired and someone else wrote it. */
  | { kind: 'refused' }
  /** The store could not be asked (a lost connection, a timeout): try again next time. */
  | { kind: 'failed' };

/** Three renewals per TTL: two can fail in a row before the lease can expire. */
export const renewEveryMs = (ttlMs: number): number => Math.max(1, Math.floor(ttlMs / 3));

/** How often a replica looks for runs without a driver and processors without a leader. */
export const sweepEveryMs = (ttlMs: number): number => Math.max(1, Math.floor(ttlMs / 2));

export const heldAt = (revision: number, now: number): LeaseState => ({ kind: 'held', revision, renewedAt: now });

export function afterRenewal(state: LeaseState, outcome: RenewalOutcome, now: number, ttlMs: number): LeaseState {
  if (state.kind === 'lost') return state;
  switch (outcome.kind) {
    case 'renewed':
      return heldAt(outcome.revision, now);
    case 'refused':
      return { kind: 'lost', reason: 'taken' };
    case 'failed':
      // The store may have expired it already: past the TTL since the last renewal it is not ours to use.
      return now - state.renewedAt >= ttlMs ? { kind: 'lost', reason: 'expired' } : state;
    default: {
      const unreachable: never = outcome;
      throw new Error(`unknown renewal outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Whether the holder may still act under the lease (append to the run it owns). Only until the TTL
 * has passed since the last renewal the store confirmed: after that another replica may own it.
 */
export const mayAct = (state: LeaseState, now: number, ttlMs: number): boolean => state.kind === 'held' && now - state.renewedAt < ttlMs;

/** The unfinished runs a sweep tries to take: those this replica does not drive already. */
export const runsToTake = (active: readonly string[], drivenHere: ReadonlySet<string>): string[] =>
  active.filter((runId) => !drivenHere.has(runId));
