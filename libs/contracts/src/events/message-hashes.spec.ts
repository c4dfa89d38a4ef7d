import { prng } from '@stagecraft/testing';
import { MessageHashEntry, compactMessageHashes, expandMessageHashes } from './message-hashes';

const hash = (n: number) => n.toString(16).padStart(64, '0');

describe('message hashes recorded as ranges of the previous request', () => {
  it('records the stretches a request repeats as ranges, and what is new as hashes', () => {
    const previous = [hash(1), hash(2), hash(3), hash(4)];
    const next = [hash(9), hash(2), hash(3), hash(4), hash(5), hash(6)];
    const entries = compactMessageHashes(next, previous);
    expect(entries).toEqual([hash(9), [1, 4], hash(5), hash(6)]);
    expect(expandMessageHashes(entries, previous)).toEqual(next);
    expect(MessageHashEntry.array().safeParse(entries).success).toBe(true);
  });

  it('records a first request, or one with nothing in common, as its hashes', () => {
    expect(compactMessageHashes([hash(1), hash(2)], [])).toEqual([hash(1), hash(2)]);
    expect(compactMessageHashes([hash(1), hash(2)], [hash(3)])).toEqual([hash(1), hash(2)]);
  });

  it('keeps a long run short: each request adds what is new, not the whole conversation again', () => {
    let previous: string[] = [];
    let recorded = 0;
    for (let step = 0; step < 200; step++) {
      const next = [hash(10_000 + step), ...previous.slice(1), hash(2 * step + 1), hash(2 * step + 2)];
      const entries = compactMessageHashes(next, previous);
      expect(expandMessageHashes(entries, previous)).toEqual(next);
      recorded = JSON.stringify(entries).length;
      previous = next;
    }
    // The 200th request sends 401 messages and records four entries.
    expect(previous).toHaveLength(401);
    expect(recorded).toBeLessThan(4 * 70);
  });

  it('rebuilds any list from any previous one, repeats and reorderings included', () => {
    const next = prng(7);
    for (let trial = 0; trial < 300; trial++) {
      const pool = 1 + Math.floor(next() * 6);
      const list = (length: number) => Array.from({ length }, () => hash(Math.floor(next() * pool)));
      const previous = list(Math.floor(next() * 12));
      const current = list(Math.floor(next() * 12));
      expect({ trial, restored: expandMessageHashes(compactMessageHashes(current, previous), previous) }).toEqual({ trial, restored: current });
    }
  });

  it('refuses a range outside the previous request, or an empty one', () => {
    expect(() => expandMessageHashes([[0, 3]], [hash(1), hash(2)])).toThrow(RangeError);
    expect(() => expandMessageHashes([[1, 1]], [hash(1), hash(2)])).toThrow(RangeError);
  });
});
