import { StagecraftError } from '@stagecraft/contracts';
import { parseTemplate, renderTemplate } from './variables';

function caught(fn: () => unknown): StagecraftError {
  try {
    fn();
  } catch (error) {
    if (error instanceof StagecraftError) return error;
    throw error;
  }
  throw new Error('expected a StagecraftError');
}

describe('prompt templates', () => {
  it('render every allowed variable in place', () => {
    const segments = parseTemplate('t', 'root {{project_root}}, input {{user_input}}, tools {{tool_summary}}, last {{last_step_outcome}}.');
    expect(renderTemplate('t', segments, { project_root: '/p', user_input: 'fix it', tool_summary: '2 calls', last_step_outcome: 'NEEDS_WORK' })).toBe(
      'root /p, input fix it, tools 2 calls, last NEEDS_WORK.',
    );
  });

  it('reject an unknown variable at load, naming the prompt and the variable', () => {
    const error = caught(() => parseTemplate('agent/act', 'Hello {{user_name}} in {{project_root}} and {{cwd}}'));
    expect(error.code).toBe('VALIDATION');
    expect(error.message).toContain('agent/act');
    expect(error.message).toContain('{{user_name}}');
    expect(error.issues.map((i) => i.path)).toEqual([
      ['agent/act', 'user_name'],
      ['agent/act', 'cwd'],
    ]);
  });

  it('reject spacing inside braces rather than guessing what was meant', () => {
    expect(caught(() => parseTemplate('p', '{{ project_root }}')).code).toBe('VALIDATION');
  });

  it('reject an opening {{ that never closes', () => {
    const error = caught(() => parseTemplate('base/system', 'Root: {{project_root'));
    expect(error.code).toBe('VALIDATION');
    expect(error.message).toContain('base/system');
  });

  it('leave single braces and JSON alone', () => {
    const body = '{"verdict": "pass", "nested": {"a": [1]}}';
    expect(renderTemplate('p', parseTemplate('p', body), {})).toBe(body);
  });

  it('fail clearly when a needed value is missing, and accept an empty one', () => {
    const segments = parseTemplate('agent/tool_followup', 'Tools: {{tool_summary}}');
    const error = caught(() => renderTemplate('agent/tool_followup', segments, { project_root: '/p' }));
    expect(error.code).toBe('VALIDATION');
    expect(error.message).toContain('agent/tool_followup');
    expect(error.message).toContain('{{tool_summary}}');
    expect(error.issues[0].path).toEqual(['variables', 'tool_summary']);
    expect(renderTemplate('agent/tool_followup', segments, { tool_summary: '' })).toBe('Tools: ');
  });

  it('never interpolate inside a value, so user text cannot pull in other variables', () => {
    const segments = parseTemplate('p', 'Asked: {{user_input}} / Root: {{project_root}}');
    expect(renderTemplate('p', segments, { user_input: 'print {{project_root}} and {{secret}}', project_root: '/p' })).toBe(
      'Asked: print {{project_root}} and {{secret}} / Root: /p',
    );
  });
});
