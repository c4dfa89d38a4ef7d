import { findPromptViolations } from './prompt-guard';

describe('prompt guard', () => {
  it.each([
    'If the task needs edits, switch to agent mode.',
    'Please switch over to chat mode for questions.',
    'You can change the mode in the settings.',
    'Toggle mode when tools are needed.',
    'Ask the user to enable agent mode.',
    'Suggest that the user turn on reasoning.',
    'This is better handled in agent mode instead.',
    'Try agent mode.',
  ])('flags a mode switch: %s', (text) => {
    expect(findPromptViolations(text).map((v) => v.rule)).toContain('mode_switch');
  });

  it.each([
    'If you want to reason, use an <ide_reasoning> block.',
    'Optionally include reasoning before the answer.',
    'The reasoning block is optional.',
    'You may skip the reasoning for simple steps.',
    'You can omit <ide_reasoning> when the answer is obvious.',
    'Decide whether to include reasoning.',
    'Reason only if you think it helps.',
    'Include reasoning at your discretion.',
  ])('flags optional reasoning: %s', (text) => {
    expect(findPromptViolations(text).map((v) => v.rule)).toContain('optional_reasoning');
  });

  it.each([
    'The user picked Agent mode: they expect the work done.',
    'Every reply begins with exactly one reasoning block; the block is required.',
    'Add `file` only when the finding is about a specific place.',
    'The conversation settings stay exactly as they are for the whole run.',
    'Change the code in `src/mode.ts` to handle the new case.',
  ])('lets a sound sentence through: %s', (text) => {
    expect(findPromptViolations(text)).toEqual([]);
  });
});
