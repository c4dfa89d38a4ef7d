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
