import { StagecraftError } from '@stagecraft/contracts';
import { ToolFailureError, failed, outcomeOfError } from './outcome';

describe('tool outcomes', () => {
  it('writes a failure as the labelled tool-error lines, with the details after them', () => {
    expect(failed({ kind: 'NOT_FOUND', problem: 'no file a.ts', retry: 'list the directory first' })).toEqual({
      ok: false,
      output: 'tool_error: NOT_FOUND\nproblem: no file a.ts\nretry: list the directory first',
      truncated: false,
    });
    expect(
      failed({ kind: 'COMMAND_FAILED', problem: 'exit code 1', retry: 'fix the test', details: 'FAIL a.spec.ts\n  expected 1' }, true),
    ).toEqual({
      ok: false,
      output: 'tool_error: COMMAND_FAILED\nproblem: exit code 1\nretry: fix the test\ndetails:\nFAIL a.spec.ts\n  expected 1',
      truncated: true,
    });
  });

  it('turns every error into a failed outcome with a code the model can act on', () => {
    expect(outcomeOfError(new ToolFailureError({ kind: 'TOO_LARGE', problem: 'too big', retry: 'read a range' })).output).toBe(
      'tool_error: TOO_LARGE\nproblem: too big\nretry: read a range',
    );
    expect(outcomeOfError(new StagecraftError('FORBIDDEN_PATH', 'outside the project')).output).toMatch(
      /^tool_error: FORBIDDEN_PATH\nproblem: outside the project\nretry: use a path relative/,
    );
    expect(outcomeOfError(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })).output).toMatch(
      /^tool_error: IO_ERROR\nproblem: EACCES: permission denied\nretry: /,
    );
    expect(outcomeOfError('odd').output).toMatch(/^tool_error: INTERNAL\nproblem: odd\nretry: retry once/);
  });
});
