import { spec } from '@stagecraft/decider';
import { MemoryDecided, MemoryInput, MemoryScopeState, emptyScope, memoryDecider } from './memory.decider';

const retained = (memoryId: string, content: string, extra: Partial<MemoryDecided['data']> = {}): MemoryDecided => ({
  type: 'MemoryRetained',
  data: { memoryId, scope: 's', tier: 'run_outcome', content, tags: [], ...extra } as Extract<
    MemoryDecided,
    { type: 'MemoryRetained' }
  >['data'],
});
const retain = (memoryId: string, content: string, extra: Partial<MemoryInput> = {}): MemoryInput =>
  ({ type: 'Retain', memoryId, scope: 's', tier: 'run_outcome', content, tags: [], ...extra }) as MemoryInput;
const limit2 = { runOutcomeLimit: 2 };

describe('the memory decider', () => {
  it('retains a memory once: its id again retains nothing', () => {
    spec(memoryDecider, limit2)
      .given([])
      .when(retain('m1', 'the cache is Redis', { tier: 'project', tags: ['cache'] }))
      .then([retained('m1', 'the cache is Redis', { tier: 'project', tags: ['cache'] })]);
    spec(memoryDecider, limit2)
      .given([retained('m1', 'one')])
      .when(retain('m1', 'another text'))
      .then([]);
  });

  it('bounds the run-outcome tier, retracting the oldest past the limit, the new one counted', () => {
    spec(memoryDecider, limit2)
      .given([retained('a', 'first'), retained('b', 'second')])
      .when(retain('c', 'third'))
      .then([
        retained('c', 'third'),
        { type: 'MemoryRetracted', data: { memoryId: 'a', scope: 's', reason: 'run outcomes keep the latest 2; this was the oldest' } },
      ]);
    spec(memoryDecider, limit2)
      .given([retained('a', 'first')])
      .when(retain('b', 'second'))
      .then([retained('b', 'second')]);
  });

  it('does not count a memory retained inside a run not seen ending DONE, and counts one from a run that did', () => {
    const full: MemoryDecided[] = [retained('a', 'first'), retained('b', 'second')];
    const fromRun = (runId: string) => retain('c', 'third', { source: { runId } });
    const given = (doneRuns: Record<string, true>): MemoryScopeState =>
      full.reduce(memoryDecider.evolve, { scope: emptyScope('s'), doneRuns });
    expect(spec(memoryDecider, limit2).givenState(given({})).when(fromRun('r1')).events()).toHaveLength(1);
    expect(
      spec(memoryDecider, limit2)
        .givenState(given({ r1: true }))
        .when(fromRun('r1'))
        .events()
        .map((e) => e.type),
    ).toEqual(['MemoryRetained', 'MemoryRetracted']);
  });

  it('reflects: links related memories, merges a near-duplicate into the older one, and links a pair once', () => {
    const project = (memoryId: string, content: string) => retained(memoryId, content, { tier: 'project' });
    const given = [project('old', 'the cache layer uses Redis for sessions'), project('new', 'the cache layer uses Redis for sessions')];
    const events = spec(memoryDecider, limit2).given(given).when({ type: 'Reflect', scope: 's', query: 'cache redis' }).events();
    expect(events).toEqual([
      { type: 'MemoryLinked', data: { scope: 's', from: 'new', to: 'old', kind: 'duplicate', score: 1 } },
      { type: 'MemoryRetracted', data: { memoryId: 'new', scope: 's', reason: 'merged into old by reflection: a near-duplicate' } },
    ]);
    spec(memoryDecider, limit2)
      .given([...given, ...events])
      .when({ type: 'Reflect', scope: 's', query: 'cache redis' })
      .then([]);
    spec(memoryDecider, limit2).given([]).when({ type: 'Reflect', scope: 's', query: 'anything' }).then([]);
  });
});
