import { BENCH_NOTES, BENCH_QUESTIONS, BENCH_RUNS, recallAt, scoreRanking } from './memory-bench';

describe('the recall benchmark', () => {
  it('counts the share of relevant memories among the first k', () => {
    expect(recallAt(3, ['o-8', 'o-7'], ['o-8', 'a-db', 'o-6', 'o-7'])).toBe(0.5);
    expect(recallAt(3, ['o-8'], [])).toBe(0);
    const questions = [BENCH_QUESTIONS[0], BENCH_QUESTIONS.find((q) => q.kind === 'lexical')!];
    expect(scoreRanking(3, questions, [['o-8'], ['nothing']])).toEqual({ all: 0.5, recency: 1, lexical: 0, paraphrase: 0 });
  });

  it('asks only about memories its project holds', () => {
    const ids = new Set([
      ...BENCH_RUNS.map((r) => `o-${r.n}`),
      ...BENCH_RUNS.flatMap((r) => r.commands.map((c) => `f-${[c.command, ...c.args].join(' ')}`)),
      ...BENCH_NOTES.map((n) => n.id),
    ]);
    expect(BENCH_QUESTIONS.flatMap((q) => q.relevant).filter((id) => !ids.has(id))).toEqual([]);
  });
});
