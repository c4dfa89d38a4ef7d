import { describeBusContract } from './bus.contract';
import { createInprocBus } from './inproc-bus';
import { subjectMatches } from './subject-match';

describeBusContract('in-process', async () => {
  const bus = createInprocBus();
  return { bus, peer: bus, close: () => bus.close() };
});

describe('subjectMatches', () => {
  it.each([
    ['a.*.c', 'a.b.c', true],
    ['a.*.c', 'a.b.d', false],
    ['a.>', 'a.b.c', true],
    ['a.>', 'a', false],
    ['a.b', 'a.b.c', false],
  ])('%s ~ %s → %s', (pattern, subject, expected) => expect(subjectMatches(pattern, subject)).toBe(expected));
});

describe('in-process subscriptions', () => {
  it('delivers to exact and wildcard subscribers, and stops after unsubscribe', async () => {
    const bus = createInprocBus();
    const seen: string[] = [];
    const a = bus.subscribe('run.r1.events', (m) => seen.push(`a:${m.body}`));
    const b = bus.subscribe('run.r1.events', (m) => seen.push(`b:${m.body}`));
    bus.subscribe('run.>', (m) => seen.push(`w:${m.body}`));
    bus.publish('run.r1.events', '1');
    await new Promise((r) => setImmediate(r));
    a.unsubscribe();
    a.unsubscribe();
    bus.publish('run.r1.events', '2');
    await new Promise((r) => setImmediate(r));
    b.unsubscribe();
    const c = bus.subscribe('run.r1.events', (m) => seen.push(`c:${m.body}`));
    b.unsubscribe();
    bus.publish('run.r1.events', '3');
    await new Promise((r) => setImmediate(r));
    c.unsubscribe();
    expect(seen).toEqual(['a:1', 'b:1', 'w:1', 'b:2', 'w:2', 'c:3', 'w:3']);
    await bus.close();
  });
});
