import { Log, at, fold, modelRequested, modelResponded, runStarted, usage } from '../log.testing';
import { listRunSummaries } from './summary';
import { runsModel } from './runs';

const MINUTE = 60_000;

describe('runs as a caller reads them', () => {
  const log = new Log();
  const [idle, busy] = [log.run('r-idle'), log.run('r-busy')];
  idle('RunStarted', runStarted('r-idle'), at(0));
  idle('ModelRequested', modelRequested('m1', 'gpt-a'), at(1));
  idle('ModelResponded', modelResponded('m1', usage(2_000_000, 0)), at(2));
  busy('RunStarted', runStarted('r-busy'), at(600));
  const view = fold(runsModel, log.events);
  const reading = {
    prices: { 'gpt-a': { promptPerMTok: 0.5, completionPerMTok: 1 } },
    now: new Date(Date.parse(at(600)) + MINUTE),
    idleMs: 5 * MINUTE,
  };

  it('prices each run and judges it stuck at the reader’s clock, newest first', () => {
    expect(
      listRunSummaries(view, { limit: 10 }, reading).map(({ runId, cost, stuck, resumable }) => ({ runId, cost, stuck, resumable })),
    ).toEqual([
      { runId: 'r-busy', cost: { amount: 0, currency: 'USD', priced: true }, stuck: false, resumable: true },
      { runId: 'r-idle', cost: { amount: 1, currency: 'USD', priced: true }, stuck: true, resumable: true },
    ]);
  });

  it('keeps only the stuck runs, or only the others', () => {
    expect(listRunSummaries(view, { stuck: true, limit: 10 }, reading).map((r) => r.runId)).toEqual(['r-idle']);
    expect(listRunSummaries(view, { stuck: false, limit: 10 }, reading).map((r) => r.runId)).toEqual(['r-busy']);
  });
});
