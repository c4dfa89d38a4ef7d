import { ContextIdString } from '../context';
import { formatContextId, parseContextId } from './context-id';

const parts = { workflowRunId: 'wf-abc123', agentType: 'discovery-collector', sequence: 1, timestamp: '2026-01-19T10:30:00Z' };

describe('formatContextId / parseContextId', () => {
  it("gives the seed's own example", () => {
    expect(formatContextId(parts)).toBe('wf-abc123/discovery-collector/001/2026-01-19T10:30:00Z');
    expect(parseContextId('wf-abc123/discovery-collector/001/2026-01-19T10:30:00Z')).toEqual(parts);
  });

  it('pads the sequence to three digits and no further', () => {
    expect(formatContextId({ ...parts, sequence: 42 })).toBe('wf-abc123/discovery-collector/042/2026-01-19T10:30:00Z');
    expect(formatContextId({ ...parts, sequence: 1234 })).toBe('wf-abc123/discovery-collector/1234/2026-01-19T10:30:00Z');
  });

  it('keeps fractional seconds', () => {
    expect(parseContextId('run-7/main/003/2026-01-19T10:30:00.125Z').timestamp).toBe('2026-01-19T10:30:00.125Z');
  });

  it.each([
    ['empty', ''],
    ['three parts', 'wf/main/001'],
    ['five parts', 'wf/main/001/2026-01-19T10:30:00Z/extra'],
    ['an empty run id', '/main/001/2026-01-19T10:30:00Z'],
    ['a space in the agent type', 'wf/main agent/001/2026-01-19T10:30:00Z'],
    ['sequence 0', 'wf/main/000/2026-01-19T10:30:00Z'],
    ['an unpadded sequence', 'wf/main/7/2026-01-19T10:30:00Z'],
    ['an over-padded sequence', 'wf/main/0007/2026-01-19T10:30:00Z'],
    ['a negative sequence', 'wf/main/-01/2026-01-19T10:30:00Z'],
    ['an epoch timestamp', 'wf/main/001/1768818600000'],
    ['a timestamp with an offset', 'wf/main/001/2026-01-19T10:30:00+01:00'],
    ['an impossible date', 'wf/main/001/2026-02-30T10:30:00Z'],
    ['a date without time', 'wf/main/001/2026-01-19'],
  ])('rejects %s with VALIDATION', (_what, id) => {
    expect(() => parseContextId(id)).toThrow(
      expect.objectContaining({ code: 'VALIDATION', message: `malformed context id ${JSON.stringify(id)}` }),
    );
    expect(ContextIdString.safeParse(id).success).toBe(false);
  });

  it('names the problem in the issues', () => {
    expect(() => parseContextId('wf/main/000/2026-01-19T10:30:00Z')).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ message: expect.stringContaining('sequence') })] }),
    );
  });

  it.each([
    ['a slash in the run id', { workflowRunId: 'wf/1' }],
    ['sequence 0', { sequence: 0 }],
    ['a fractional sequence', { sequence: 1.5 }],
    ['a local time', { timestamp: '2026-01-19T10:30:00' }],
  ])('refuses to format %s', (_what, change) => {
    expect(() => formatContextId({ ...parts, ...change })).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  });
});
