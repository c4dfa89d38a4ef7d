import type { RunSummary } from '@stagecraft/contracts';
import { formatCost, formatDuration, formatRuns, formatSpent, tokenTotals } from './runs-table';

describe('the runs table', () => {
  it('writes durations at the scale that reads best', () => {
    expect([840, 12_340, 245_000, 7_620_000].map(formatDuration)).toEqual(['840ms', '12.3s', '4m05s', '2h07m']);
  });

  it('marks a cost that leaves out a model without a price', () => {
    expect(formatCost({ amount: 0.01234, currency: 'USD', priced: true })).toBe('$0.0123');
    expect(formatCost({ amount: 0.01234, currency: 'USD', priced: false })).toBe('$0.0123+');
    expect(formatCost({ amount: 0, currency: 'USD', priced: false })).toBe('unpriced');
  });

  it('writes one row per run: a running one lasts until now and says when it is stuck', () => {
    const run: RunSummary = {
      runId: 'r-1',
      conversationId: 'c-1',
      userMode: 'agent',
      reasoningEnabled: true,
      status: 'running',
      stage: 'act',
      startedAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:05.000Z',
      endedAt: null,
      modelCalls: 2,
      tokens: {
        m: { promptTokens: 100, completionTokens: 20, totalTokens: 120, cachedPromptTokens: 40 },
        qa: { promptTokens: 5, completionTokens: 1, totalTokens: 6 },
      },
      deliveryState: null,
      qaVerdict: null,
      failure: null,
      cost: { amount: 0.5, currency: 'USD', priced: true },
      stuck: true,
      resumable: true,
    };
    const [, , row] = formatRuns([run], new Date('2026-11-22T10:01:30.000Z')).split('\n');
    expect(row.split(/\s{2,}/)).toEqual([
      'r-1',
      'running (stuck, resumable)',
      'act',
      '2026-11-22 10:00:00Z',
      '1m30s',
      '2',
      '105/40/21',
      '$0.5000',
      '-',
      '-',
    ]);
    expect(formatRuns([], new Date())).toBe('no runs');
  });

  it('sums prompt, cached and completion tokens over every model for a followed run’s closing line', () => {
    const totals = tokenTotals({
      m: { promptTokens: 100, completionTokens: 20, totalTokens: 120, cachedPromptTokens: 40 },
      qa: { promptTokens: 5, completionTokens: 1, totalTokens: 6 },
    });
    expect(totals).toEqual({ promptTokens: 105, cachedPromptTokens: 40, completionTokens: 21 });
    expect(formatSpent(totals, { amount: 0.00123, currency: 'USD', priced: false })).toBe(
      'tokens: 105 prompt (40 cached), 21 completion · cost $0.0012+',
    );
  });
});
