import { PreviousAttempt, PromptAssembleRequest } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { findPromptViolations } from '@stagecraft/prompts';
import { MAX_OUTPUT_CHARS, previousAttemptContributor, renderPreviousAttempt } from './previous-attempt';

const policy = decideStagePolicy({ userMode: 'agent', reasoningEnabled: false, stage: 'act', delegation: { depth: 0, chain: [] } });
const attempt = (change: Partial<PreviousAttempt> = {}): PreviousAttempt =>
  PreviousAttempt.parse({
    previousContextId: 'wf-1/main/003/2026-01-19T10:30:00Z',
    attemptNumber: 2,
    previousAttemptAt: '2026-01-19T10:30:00Z',
    serializedOutput: '{"patched":["src/config.ts"]}',
    error: {
      message: 'TypeError: cannot read properties of undefined',
      stackTrace: 'at parse (src/config.ts:12)\nat load (src/load.ts:4)',
    },
    ...change,
  });

describe('previous attempt contributor', () => {
  it('adds nothing on a first run', () => {
    expect(previousAttemptContributor.contribute({ agentType: 'main', policy, variables: {}, instructions: [] })).toBeNull();
  });

  it('gives the attempt number, the error with its stack, and the output', () => {
    expect(renderPreviousAttempt(attempt())).toBe(
      [
        '## Previous attempt',
        '',
        'This is attempt 3. Attempt 2 (context wf-1/main/003/2026-01-19T10:30:00Z, at 2026-01-19T10:30:00Z) did not complete the task.',
        'It failed with this error:',
        '',
        'TypeError: cannot read properties of undefined',
        '',
        '```text\nat parse (src/config.ts:12)\nat load (src/load.ts:4)\n```',
        '',
        'Its output:',
        '',
        '```text\n{"patched":["src/config.ts"]}\n```',
        '',
        'Keep what that attempt got right, correct what made it fail, and do not repeat a failing step unchanged.',
      ].join('\n'),
    );
  });

  it('says when the attempt finished but was not accepted, and when it produced nothing', () => {
    const text = renderPreviousAttempt(attempt({ error: undefined, serializedOutput: '  ' }));
    expect(text).toContain('It finished, but its result was not accepted.');
    expect(text).toContain('It produced no output.');
    expect(text).not.toContain('error');
  });

  it('cuts a long output and a long stack trace, and says how much was left out', () => {
    const stackTrace = Array.from({ length: 25 }, (_, i) => `at frame${i} (src/f.ts:${i})`).join('\n');
    const text = renderPreviousAttempt(
      attempt({ serializedOutput: 'x'.repeat(MAX_OUTPUT_CHARS + 500), error: { message: 'boom', stackTrace } }),
    );
    expect(text).toContain(`${'x'.repeat(MAX_OUTPUT_CHARS)}\n[… 500 more characters not shown]`);
    expect(text).not.toContain('x'.repeat(MAX_OUTPUT_CHARS + 1));
    expect(text).toContain('at frame19 (src/f.ts:19)\n[… 5 more lines]');
    expect(text).not.toContain('frame20');
  });

  it('keeps a quoted fence from closing the block early', () => {
    const text = renderPreviousAttempt(attempt({ serializedOutput: 'before\n```\nafter' }));
    expect(text).toContain('````text\nbefore\n```\nafter\n````');
  });

  it('lists the contexts the attempt worked from', () => {
    const text = renderPreviousAttempt(
      attempt({
        priorContexts: [
          {
            kind: 'result',
            resultId: 'wf-1/specialist/001/2026-01-19T10:29:00Z',
            agentType: 'specialist',
            output: 'Found two callers.\nMore.',
          },
        ],
      }),
    );
    expect(text).toContain(
      'It worked from these contexts:\n- result wf-1/specialist/001/2026-01-19T10:29:00Z from specialist: Found two callers.',
    );
  });

  it('reaches the contributor through a parsed assemble request, and its own text passes the prompt guard', () => {
    const request = PromptAssembleRequest.parse({ policy, variables: {}, previousAttempt: attempt() });
    const text = previousAttemptContributor.contribute(request) ?? '';
    expect(text).toContain('This is attempt 3.');
    expect(findPromptViolations(text)).toEqual([]);
  });
});
