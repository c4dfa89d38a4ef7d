import { viewDifferences } from './view-diff';

describe('viewDifferences', () => {
  it('finds nothing between equal views, whatever order their keys were set in', () => {
    expect(viewDifferences({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toEqual([]);
  });

  it('names the path of each first differing value, with both sides as JSON', () => {
    const live = { runs: { 'r-1': { status: 'running', tokens: 10 } }, active: ['r-1'] };
    const rebuilt = { runs: { 'r-1': { status: 'completed', tokens: 10 } }, active: [] };
    expect(viewDifferences(live, rebuilt)).toEqual([
      { path: '$.active[0]', live: '"r-1"', rebuilt: undefined },
      { path: '$.runs["r-1"].status', live: '"running"', rebuilt: '"completed"' },
    ]);
  });

  it('reports a value whose kind changed at its own path, and stops at the limit', () => {
    expect(viewDifferences({ a: [1], b: 1, c: 1 }, { a: { 0: 1 }, b: 2, c: 2 }, 2)).toEqual([
      { path: '$.a', live: '[1]', rebuilt: '{"0":1}' },
      { path: '$.b', live: '1', rebuilt: '2' },
    ]);
  });
});
