import { prng } from '@stagecraft/testing';
import { formatContextId, parseContextId } from './context-id';

const FIRST = 'ABCXYZabcxyz0189';
const REST = `${FIRST}._:-`;
const SEED = 20_260_119;
const RUNS = 5_000;

describe('context ids over random parts', () => {
  const next = prng(SEED);
  const int = (max: number) => Math.floor(next() * max);
  const segment = () => FIRST[int(FIRST.length)] + Array.from({ length: int(40) }, () => REST[int(REST.length)]).join('');
  const sequence = () => [1 + int(9), 1 + int(999), 1 + int(1_000_000), Number.MAX_SAFE_INTEGER - int(10)][int(4)];
  const timestamp = () => {
    const iso = new Date(Date.UTC(1970 + int(130), 0, 1) + int(365 * 24 * 3600 * 1000)).toISOString();
    return [iso, iso.replace(/\.\d{3}Z$/, 'Z'), iso.replace(/Z$/, '456Z')][int(3)];
  };
  const samples = Array.from({ length: RUNS }, () => ({
    workflowRunId: segment(),
    agentType: segment(),
    sequence: sequence(),
    timestamp: timestamp(),
  }));

  it('draws long and short segments, small and huge sequences, and three timestamp precisions', () => {
    expect(new Set(samples.map((s) => String(s.sequence).length)).size).toBeGreaterThan(5);
    expect(samples.some((s) => s.workflowRunId.length === 1) && samples.some((s) => s.workflowRunId.length > 30)).toBe(true);
    expect(new Set(samples.map((s) => s.timestamp.length)).size).toBe(3);
  });

  it('parse(format(parts)) gives the parts back, and format(parse(id)) the id', () => {
    for (const parts of samples) {
      const id = formatContextId(parts);
      expect(parseContextId(id)).toEqual(parts);
      expect(formatContextId(parseContextId(id))).toBe(id);
    }
  });

  it('orders ids of one run and agent type by sequence when the sequence has the same width', () => {
    const ids = Array.from({ length: 999 }, (_, i) =>
      formatContextId({ workflowRunId: 'wf', agentType: 'main', sequence: i + 1, timestamp: '2026-01-19T10:30:00Z' }),
    );
    expect([...ids].sort()).toEqual(ids);
  });
});
