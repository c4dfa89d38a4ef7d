import { LeaseState, afterRenewal, heldAt, mayAct, renewEveryMs, runsToTake, sweepEveryMs } from './lease-decisions';

const TTL = 3_000;

describe('lease decisions', () => {
  describe('after a renewal', () => {
    const held = heldAt(4, 1_000);

    it('a renewal the store accepted moves the lease on to its new revision and time', () => {
      expect(afterRenewal(held, { kind: 'renewed', revision: 5 }, 2_000, TTL)).toEqual({ kind: 'held', revision: 5, renewedAt: 2_000 });
    });

    it('a renewal the store refused means another replica owns the key now', () => {
      expect(afterRenewal(held, { kind: 'refused' }, 2_000, TTL)).toEqual({ kind: 'lost', reason: 'taken' });
    });

    it('a renewal that could not reach the store keeps the lease while its TTL lasts', () => {
      expect(afterRenewal(held, { kind: 'failed' }, 1_000 + TTL - 1, TTL)).toBe(held);
    });

    it('a renewal that could not reach the store once the TTL has passed loses the lease: the store may have expired it', () => {
      expect(afterRenewal(held, { kind: 'failed' }, 1_000 + TTL, TTL)).toEqual({ kind: 'lost', reason: 'expired' });
    });

    it('a lost lease stays lost whatever a late renewal says', () => {
      const lost: LeaseState = { kind: 'lost', reason: 'taken' };
      expect(afterRenewal(lost, { kind: 'renewed', revision: 9 }, 2_000, TTL)).toBe(lost);
    });
  });

  describe('whether the holder may act', () => {
    it('within the TTL of the last confirmed renewal', () => {
      expect(mayAct(heldAt(1, 1_000), 1_000 + TTL - 1, TTL)).toBe(true);
    });

    it('not once the TTL has passed, even before a renewal told it so', () => {
      expect(mayAct(heldAt(1, 1_000), 1_000 + TTL, TTL)).toBe(false);
    });

    it('never after losing it', () => {
      expect(mayAct({ kind: 'lost', reason: 'expired' }, 0, TTL)).toBe(false);
    });
  });

  it('renews three times per TTL and sweeps twice per TTL', () => {
    expect(renewEveryMs(TTL)).toBe(1_000);
    expect(sweepEveryMs(TTL)).toBe(1_500);
    expect(renewEveryMs(1)).toBe(1);
  });

  it('a sweep tries the unfinished runs this replica does not drive, in log order', () => {
    expect(runsToTake(['a', 'b', 'c', 'd'], new Set(['b', 'd']))).toEqual(['a', 'c']);
    expect(runsToTake([], new Set(['a']))).toEqual([]);
  });
});
