import type { RecordedEvent } from '@stagecraft/contracts';
import {
  MemoriesView,
  fuseRankings,
  interleaveRankings,
  liveMemories,
  memoriesModel,
  rankMemories,
  recallRanking,
  recentOutcomes,
} from './memories';

let position = 0n;
const event = (scope: string, type: string, data: Record<string, unknown>): RecordedEvent => ({
  id: `e${position + 1n}`,
  streamId: `memory-${scope}`,
  revision: 0n,
  position: ++position,
  type,
  data,
  metadata: {},
  recordedAt: '2026-01-01T00:00:00.000Z',
});
const retained = (scope: string, memoryId: string, content: string, tier = 'project', tags: string[] = []) =>
  event(scope, 'MemoryRetained', { memoryId, scope, tier, content, tags });

const fold = (events: RecordedEvent[]): MemoriesView =>
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

describe('memories retained inside a run (seed 002 §8.2)', () => {
  const runEnd = (runId: string, deliveryState: 'DONE' | 'NEEDS_WORK'): RecordedEvent => ({
    id: `e${position + 1n}`,
    streamId: `run-${runId}`,
    revision: 5n,
    position: ++position,
    type: 'RunCompleted',
    data: { deliveryState, answer: 'done' },
    metadata: {},
    recordedAt: '2026-01-01T00:00:00.000Z',
  });
  const inRun = (memoryId: string, runId: string, content: string) =>
    event('s', 'MemoryRetained', { memoryId, scope: 's', tier: 'architecture', content, tags: [], source: { runId } });
  const direct = retained('s', 'm-direct', 'Deploy with helm');

  it('given a retain inside a run that has not ended, then it is kept but neither live nor counted', () => {
    const view = fold([direct, inRun('m-run', 'r1', 'The cache is Redis')]);
    const scope = view.scopes['s'];
    expect(scope.live).toEqual(['m-direct']);
    expect(scope.memories['m-run']).toMatchObject({ provisional: true, source: { runId: 'r1' } });
    expect(scope.documentFrequency['redis']).toBeUndefined();
    expect(scope.totalLength).toBe(3);
    expect(rankMemories(scope, 'cache redis', { limit: 5 })).toEqual([]);
    expect(view.provisional).toEqual({ r1: [{ scope: 's', memoryId: 'm-run' }] });
  });

  it('given the run then completes DONE, then its memories count from there', () => {
    const view = fold([direct, inRun('m-run', 'r1', 'The cache is Redis'), runEnd('r1', 'DONE')]);
    const scope = view.scopes['s'];
    expect(scope.live).toEqual(['m-direct', 'm-run']);
    expect(scope.memories['m-run'].provisional).toBeUndefined();
    expect(scope.documentFrequency['redis']).toBe(1);
    expect(rankMemories(scope, 'cache redis', { limit: 5 }).map((m) => m.memoryId)).toEqual(['m-run']);
    expect(view.provisional).toEqual({});
    expect(view.doneRuns).toEqual({ r1: true });
  });

  it('given the run ends NEEDS_WORK (or never ends), then its memories stay provisional forever', () => {
    const view = fold([inRun('m-run', 'r2', 'Queue on Kafka'), runEnd('r2', 'NEEDS_WORK'), runEnd('r3', 'DONE')]);
    expect(view.scopes['s'].live).toEqual([]);
    expect(view.scopes['s'].memories['m-run'].provisional).toBe(true);
  });

  it('given a retain naming a run already seen DONE (the run-outcome write policy), then it counts at once', () => {
    const view = fold([runEnd('r4', 'DONE'), inRun('m-outcome', 'r4', 'Request: x Answer: y')]);
    expect(view.scopes['s'].live).toEqual(['m-outcome']);
    expect(view.provisional).toEqual({});
  });

  it('given a provisional memory is retracted, then its run ending DONE does not bring it back', () => {
    const view = fold([
      inRun('m-run', 'r5', 'The cache is Redis'),
      event('s', 'MemoryRetracted', { memoryId: 'm-run', scope: 's', reason: 'withdrawn' }),
      runEnd('r5', 'DONE'),
    ]);
    const scope = view.scopes['s'];
    expect(scope.live).toEqual([]);
    expect(scope.memories['m-run'].retracted).toBe('withdrawn');
    expect(scope.totalLength).toBe(0);
  });

  it('given a checkpoint folded before provisional memories were kept, then it folds on', () => {
    const old = { scopes: {} } as MemoriesView;
    const view = [inRun('m-run', 'r6', 'Old checkpoint'), runEnd('r6', 'DONE')].reduce((v, e) => memoriesModel.evolve(v, e), old);
    expect(view.scopes['s'].live).toEqual(['m-run']);
  });

  it('rebuilds to the same view byte for byte', () => {
    const events = [
      direct,
      inRun('m-a', 'r7', 'alpha beta'),
      inRun('m-b', 'r8', 'gamma'),
      runEnd('r7', 'DONE'),
      runEnd('r8', 'NEEDS_WORK'),
    ];
    expect(JSON.stringify(fold(events))).toBe(JSON.stringify(fold(events)));
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

describe('interleaveRankings', () => {
  it('takes the rankings in turns, each memory once, so a memory two rankings hold weakly does not lead', () => {
    expect(
      interleaveRankings(
        [
          ['a', 'c', 'd'],
          ['b', 'c'],
        ],
        4,
      ).map((r) => r.memoryId),
    ).toEqual(['a', 'b', 'c', 'd']);
    expect(interleaveRankings([[], ['b']], 3)).toEqual([{ memoryId: 'b', score: Number((1 / 61).toFixed(6)) }]);
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

describe('recallRanking (docs/decisions/0058)', () => {
  const view = fold([
    retained('r', 'o-1', 'Request: Fix the login form\nAnswer: Fixed the validation', 'run_outcome'),
    retained('r', 'f-test', 'Test command (runs the tests; it ran and passed): npm test', 'project'),
    retained('r', 'o-2', 'Request: Rename the config loader\nAnswer: Renamed it', 'run_outcome'),
    retained('r', 'a-db', 'The project keeps its events in SQLite', 'architecture'),
    retained('r', 'o-3', 'Request: Add a NOTES.md that summarises README.md\nAnswer: Wrote NOTES.md', 'run_outcome'),
  ]);
  const scope = view.scopes['r'];
  const ids = (query: string, options: { limit: number; tier?: 'project' | 'run_outcome'; semantic?: string[] }) =>
    recallRanking(scope, query, options).map((m) => m.memoryId);

  it('shows the newest run outcomes to a question that shares no word with them', () => {
    expect(rankMemories(scope, 'What changed lately?', { limit: 3 })).toEqual([]);
    expect(ids('What changed lately?', { limit: 3 })).toEqual(['o-3', 'o-2', 'o-1']);
  });

  it('keeps the best lexical match first, the newest outcome next to it, and takes no question word as a match', () => {
    expect(rankMemories(scope, 'What is in the project?', { limit: 5 }).map((m) => m.memoryId)).toEqual(['a-db']);
    expect(ids('how do I run the tests? npm test', { limit: 3 })).toEqual(['f-test', 'o-3', 'o-2']);
    expect(ids('Which database keeps the events? SQLite', { limit: 2 })).toEqual(['a-db', 'o-3']);
  });

  it('brings no outcome into a recall of another tier, and none past the limit', () => {
    expect(ids('What changed lately?', { limit: 5, tier: 'project' })).toEqual([]);
    expect(recentOutcomes(scope, { limit: 2 }).map((m) => m.memoryId)).toEqual(['o-3', 'o-2']);
    expect(ids('What changed lately?', { limit: 1 })).toEqual(['o-3']);
  });

  it('takes a semantic ranking, fused with the lexical one, as a third, never ahead of the best word match', () => {
    expect(ids('the storage engine', { limit: 2, semantic: ['a-db', 'o-1'] })).toEqual(['o-3', 'a-db']);
    expect(ids('npm test', { limit: 4, semantic: ['a-db', 'o-1'] })).toEqual(['f-test', 'o-3', 'o-2', 'a-db']);
  });

  it('answers nothing for an unknown scope', () => {
    expect(recallRanking(undefined, 'anything', { limit: 3 })).toEqual([]);
  });
});
