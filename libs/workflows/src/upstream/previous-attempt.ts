import { PreviousAttempt } from '@stagecraft/contracts';
import type { PromptContributor } from '@stagecraft/prompts';
import { describeUpstream } from './describe-upstream';
import { bullets, capped, fenced } from './text';

/** The previous output can be long; its head shows what was done, and the full text stays in the log. */
export const MAX_OUTPUT_CHARS = 8_000;
export const MAX_STACK_LINES = 20;

function outcome(attempt: PreviousAttempt): string[] {
  if (attempt.error === undefined) return ['It finished, but its result was not accepted.'];
  const lines = ['It failed with this error:', '', attempt.error.message];
  const stack = attempt.error.stackTrace?.trim();
  if (stack) {
    const frames = stack.split('\n');
    const shown =
      frames.slice(0, MAX_STACK_LINES).join('\n') +
      (frames.length > MAX_STACK_LINES ? `\n[… ${frames.length - MAX_STACK_LINES} more lines]` : '');
    lines.push('', fenced(shown));
  }
  return lines;
}

export function renderPreviousAttempt(attempt: PreviousAttempt): string {
  const { attemptNumber: n } = attempt;
  const lines = [
    '## Previous attempt',
    '',
    `This is attempt ${n + 1}. Attempt ${n} (context ${attempt.previousContextId}, at ${attempt.previousAttemptAt}) did not complete the task.`,
    ...outcome(attempt),
    '',
    attempt.serializedOutput.trim().length === 0
      ? 'It produced no output.'
      : `Its output:\n\n${fenced(capped(attempt.serializedOutput, MAX_OUTPUT_CHARS))}`,
  ];
  if (attempt.priorContexts.length > 0)
    lines.push('', 'It worked from these contexts:', bullets(attempt.priorContexts.map(describeUpstream)));
  lines.push('', 'Keep what that attempt got right, correct what made it fail, and do not repeat a failing step unchanged.');
  return lines.join('\n');
}

/** Seed 001 §3: absent on a first run, so the section appears only on reruns; after the upstream context it builds on. */
export const previousAttemptContributor: PromptContributor = {
  name: 'previous-attempt',
  runWide: true,
  agentTypes: 'all',
  priority: 30,
  contribute: ({ previousAttempt }) => (previousAttempt === undefined ? null : renderPreviousAttempt(previousAttempt)),
};
