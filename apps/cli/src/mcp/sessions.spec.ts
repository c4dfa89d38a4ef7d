import { createSessionTable } from './sessions';

/** A clock the test moves by hand: expiry is a matter of the times recorded, not of waiting. */
function clock() {
  let time = 0;
  return { now: () => time, advance: (ms: number) => void (time += ms) };
}

describe('the session table', () => {
  it('holds at most max sessions, pushing out the least recently used', () => {
    const { now, advance } = clock();
    const table = createSessionTable<string>({ max: 3, idleMs: 1000, now });
    for (const id of ['a', 'b', 'c']) {
      expect(table.add(id, id)).toEqual([]);
      advance(1);
    }
    expect(table.use('a')).toBe('a');
    expect(table.add('d', 'd')).toEqual(['b']);
    expect(table.add('e', 'e')).toEqual(['c']);
    expect(table.size).toBe(3);
    expect(table.use('b')).toBeUndefined();
    expect(table.use('a')).toBe('a');
  });

  it('holds at most max sessions however many are added', () => {
    const table = createSessionTable<number>({ max: 64, idleMs: 1000, now: () => 0 });
    const pushedOut = Array.from({ length: 2000 }, (_, i) => table.add(String(i), i)).flat();
    expect(table.size).toBe(64);
    expect(pushedOut).toEqual(Array.from({ length: 2000 - 64 }, (_, i) => i));
  });

  it('expires the sessions idle for longer than idleMs, and only those', () => {
    const { now, advance } = clock();
    const table = createSessionTable<string>({ max: 10, idleMs: 100, now });
    table.add('old', 'old');
    advance(60);
    table.add('young', 'young');
    advance(41);
    expect(table.expire()).toEqual(['old']);
    expect(table.use('young')).toBe('young');
    advance(100);
    expect(table.expire()).toEqual([]);
    advance(1);
    expect(table.expire()).toEqual(['young']);
    expect(table.size).toBe(0);
  });

  it('clear answers every session once', () => {
    const table = createSessionTable<string>({ max: 10, idleMs: 100, now: () => 0 });
    table.add('a', 'a');
    table.add('b', 'b');
    expect(table.clear()).toEqual(['a', 'b']);
    expect(table.clear()).toEqual([]);
  });
});
