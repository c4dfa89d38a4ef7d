import { LoggedEvent } from '../read-model';
import { MemoriesView, fuseRankings, liveMemories, memoriesModel, rankMemories } from './memories';

let position = 0n;
const event = (scope: string, type: string, data: Record<string, unknown>): LoggedEvent => ({
  streamId: `memory-${scope}`,
  revision: 0n,
  position: ++position,
  type,
  data,
  metadata: {},
});
const retained = (scope: string, memoryId: string, content: string, tier = 'project', tags: string[] = []) =>
  event(scope, 'MemoryRetained', { memoryId, scope, tier, content, tags });

const fold = (events: LoggedEvent[]): MemoriesView =>
  events.reduce((view, e) => memoriesModel.evolve(view, e), memoriesModel.initialState());

describe('the memories view', () => {
  const events = [
    retained('s', 'm-build', 'Build with npm run build'),
    retained('s', 'm-test', 'Tests run with npm test and jest', 'project', ['testing']),
    retained('s', 'm-db', 'We chose SQLite for the embedded store', 'architecture'),
    retained('other', 'm-other', 'npm test is flaky here'),
  ];

  it('keeps each scope’s live memories with the statistics ranking needs', () => {
    const view = fold(events);
    const scope = view.scopes['s'];
    expect(scope.live).toEqual(['m-build', 'm-test', 'm-db']);
    expect(scope.documentFrequency['npm']).toBe(2);
    expect(scope.totalLength).toBe(5 + 8 + 7);
    expect(scope.memories['m-test'].terms).toMatchObject({ npm: 1, test: 1, testing: 1 });
    expect(view.scopes['other'].live).toEqual(['m-other']);
  });

  it('ignores a retain of a known id, and a retraction of an unknown or retracted one', () => {
    const once = JSON.stringify(fold(events));
    const repeated = fold([
      ...events,
      retained('s', 'm-build', 'something else'),
      event('s', 'MemoryRetracted', { memoryId: 'nope', scope: 's', reason: 'x' }),
    ]);
    expect(JSON.stringify(repeated)).toBe(once);
  });

  it('drops a retracted memory from ranking and statistics but keeps it, with its reason, for audit', () => {
    const view = fold([...events, event('s', 'MemoryRetracted', { memoryId: 'm-test', scope: 's', reason: 'merged' })]);
    const scope = view.scopes['s'];
    expect(scope.live).toEqual(['m-build', 'm-db']);
    expect(scope.memories['m-test'].retracted).toBe('merged');
    expect(scope.documentFrequency['npm']).toBe(1);
    expect(scope.documentFrequency['jest']).toBeUndefined();
    expect(rankMemories(scope, 'jest', { limit: 5 })).toEqual([]);
  });

  it('records each link once', () => {
    const link = event('s', 'MemoryLinked', { scope: 's', from: 'm-test', to: 'm-build', kind: 'related', score: 0.3 });
    expect(fold([...events, link, { ...link, position: ++position }]).scopes['s'].links).toEqual([
      { from: 'm-test', to: 'm-build', kind: 'related', score: 0.3 },
    ]);
  });

  it('never changes a scope entry it handed out', () => {
    const view = fold(events.slice(0, 2));
    const before = view.scopes['s'];
    const frozen = JSON.stringify(before);
    memoriesModel.evolve(view, event('s', 'MemoryRetracted', { memoryId: 'm-build', scope: 's', reason: 'gone' }));
    expect(JSON.stringify(before)).toBe(frozen);
    expect(view.scopes['s']).not.toBe(before);
  });

  it('takes a `constructor` scope or term as any other', () => {
    const view = fold([retained('constructor', 'constructor', 'constructor toString')]);
    expect(rankMemories(view.scopes['constructor'], 'constructor', { limit: 5 }).map((m) => m.memoryId)).toEqual(['constructor']);
  });
});

describe('rankMemories', () => {
  const view = fold([
    retained('s', 'a', 'npm run build builds the project'),
    retained('s', 'b', 'the project uses npm workspaces and a long description of many other unrelated things here'),
    retained('s', 'c', 'SQLite stores the events', 'architecture'),
    retained('s', 'd', 'npm run build builds the project'),
  ]);

  it('orders by BM25, rarer terms weighing more and ties going to the newer memory', () => {
    const ranked = rankMemories(view.scopes['s'], 'npm build', { limit: 10 });
    expect(ranked.map((m) => m.memoryId)).toEqual(['d', 'a', 'b']);
    expect(ranked[0].score).toBe(ranked[1].score);
    expect(ranked[1].score).toBeGreaterThan(ranked[2].score);
    expect(ranked[0]).toMatchObject({ scope: 's', tier: 'project', content: 'npm run build builds the project', tags: [] });
  });

  it('filters by tier, limits, and finds nothing for an unknown scope or a query of no words', () => {
    expect(rankMemories(view.scopes['s'], 'npm sqlite', { tier: 'architecture', limit: 10 }).map((m) => m.memoryId)).toEqual(['c']);
    expect(rankMemories(view.scopes['s'], 'npm', { limit: 1 })).toHaveLength(1);
    expect(rankMemories(undefined, 'npm', { limit: 5 })).toEqual([]);
    expect(rankMemories(view.scopes['s'], '?! …', { limit: 5 })).toEqual([]);
    expect(liveMemories(view.scopes['s'], 'architecture').map((m) => m.memoryId)).toEqual(['c']);
  });
});

describe('fuseRankings', () => {
  it('sums reciprocal ranks, so a memory both rankings hold beats one only the first holds', () => {
    expect(
      fuseRankings(
        [
          ['a', 'b', 'c'],
          ['c', 'b'],
        ],
        3,
      ).map((r) => r.memoryId),
    ).toEqual(['c', 'b', 'a']);
    expect(fuseRankings([['a'], []], 5)).toEqual([{ memoryId: 'a', score: Number((1 / 61).toFixed(6)) }]);
  });
});
