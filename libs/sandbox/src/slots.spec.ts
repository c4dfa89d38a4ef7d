import { KeyedSlots, Slots } from './slots';

const settled = async <T>(promise: Promise<T>) => {
  let state = 'pending';
  promise.then(
    () => (state = 'granted'),
    () => (state = 'left'),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return state;
};

describe('Slots', () => {
  it('grants up to its capacity, then queues first come, first served', async () => {
    const slots = new Slots(2);
    const first = await slots.acquire();
    await slots.acquire();
    const third = slots.acquire();
    const fourth = slots.acquire();
    expect([slots.running, slots.waiting]).toEqual([2, 2]);
    expect(await settled(third)).toBe('pending');
    first();
    first(); // a second release of the same slot frees nothing more
    expect(await settled(third)).toBe('granted');
    expect(await settled(fourth)).toBe('pending');
    expect([slots.running, slots.waiting]).toEqual([2, 1]);
  });

  it('lets a waiter that gives up leave the queue, and never hands it a slot', async () => {
    const slots = new Slots(1);
    const held = await slots.acquire();
    const giveUp = new AbortController();
    const leaving = slots.acquire(giveUp.signal);
    const staying = slots.acquire();
    giveUp.abort(new Error('caller went away'));
    await expect(leaving).rejects.toThrow('caller went away');
    expect(slots.waiting).toBe(1);
    held();
    expect(await settled(staying)).toBe('granted');
    expect(slots.running).toBe(1);
  });

  it('refuses at once a waiter whose signal has already fired', async () => {
    const slots = new Slots(1);
    await expect(slots.acquire(AbortSignal.abort(new Error('late')))).rejects.toThrow('late');
    expect([slots.running, slots.waiting]).toEqual([0, 0]);
  });
});

describe('KeyedSlots', () => {
  it('serialises each key apart and forgets idle keys', async () => {
    const roots = new KeyedSlots(1);
    const a = await roots.acquire('/a');
    const b = await roots.acquire('/b');
    const a2 = roots.acquire('/a');
    expect(await settled(a2)).toBe('pending');
    a();
    (await a2)();
    b();
    expect(roots.size).toBe(0);
  });

  it('forgets a key whose only waiter gave up', async () => {
    const roots = new KeyedSlots(1);
    const held = await roots.acquire('/a');
    const giveUp = new AbortController();
    const waiting = roots.acquire('/a', giveUp.signal);
    giveUp.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    held();
    expect(roots.size).toBe(0);
  });
});
