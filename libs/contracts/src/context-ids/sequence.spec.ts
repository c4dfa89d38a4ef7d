import { EMPTY_SEQUENCES, lastSequence, nextSequence, observeContextId, SequenceState, sequencesFrom } from './sequence';

describe('nextSequence', () => {
  it('counts from 1, separately per run and per agent type', () => {
    let state: SequenceState = EMPTY_SEQUENCES;
    const take = (run: string, agent: string) => {
      const next = nextSequence(state, run, agent);
      state = next.state;
      return next.sequence;
    };
    expect([take('wf-1', 'main'), take('wf-1', 'main'), take('wf-1', 'qa-reviewer'), take('wf-2', 'main'), take('wf-1', 'main')]).toEqual([
      1, 2, 1, 1, 3,
    ]);
    expect(state).toEqual({ 'wf-1': { main: 3, 'qa-reviewer': 1 }, 'wf-2': { main: 1 } });
  });

  it('never changes the state it was given', () => {
    const before = { 'wf-1': { main: 4 } };
    const frozen = structuredClone(before);
    expect(nextSequence(before, 'wf-1', 'main').sequence).toBe(5);
    expect(before).toEqual(frozen);
  });

  it('does not read inherited keys as sequences', () => {
    expect(lastSequence(EMPTY_SEQUENCES, 'constructor', 'toString')).toBe(0);
    expect(nextSequence(EMPTY_SEQUENCES, 'constructor', 'main').sequence).toBe(1);
  });
});

describe('rebuilding from issued ids', () => {
  it('resumes after the highest sequence seen, in any order', () => {
    const state = sequencesFrom([
      'wf-1/main/002/2026-01-19T10:30:01Z',
      'wf-1/main/007/2026-01-19T10:30:07Z',
      'wf-1/main/003/2026-01-19T10:30:03Z',
      'wf-1/specialist/001/2026-01-19T10:30:02Z',
    ]);
    expect(nextSequence(state, 'wf-1', 'main').sequence).toBe(8);
    expect(nextSequence(state, 'wf-1', 'specialist').sequence).toBe(2);
    expect(nextSequence(state, 'wf-9', 'main').sequence).toBe(1);
  });

  it('keeps the same state object when an id adds nothing new', () => {
    const state = sequencesFrom(['wf-1/main/005/2026-01-19T10:30:00Z']);
    expect(observeContextId(state, 'wf-1/main/002/2026-01-19T10:30:00Z')).toBe(state);
  });

  it('refuses a malformed id', () => {
    expect(() => observeContextId(EMPTY_SEQUENCES, 'wf-1/main/two/now')).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  });
});
