import { readApprovalAnswer } from './session';

describe('reading an answer typed at the terminal', () => {
  it.each([
    ['y', { decision: 'approve' }],
    [' YES ', { decision: 'approve' }],
    ['', { decision: 'deny' }],
    ['n', { decision: 'deny' }],
    ['No', { decision: 'deny' }],
    ['not in src/, use docs/', { decision: 'deny', reason: 'not in src/, use docs/' }],
  ])('%j', (typed, expected) => {
    expect(readApprovalAnswer(typed)).toEqual(expected);
  });
});
