import { StagecraftError } from '@stagecraft/contracts';
import { createPromptRepository } from './repository';

const sources = [
  { id: 'qa/system', body: 'Review.\n' },
  { id: 'base/project_root_context', body: 'Root is {{project_root}}; again {{project_root}}.' },
  { id: 'agent/tool_followup', body: '{{tool_summary}}\r\n{{last_step_outcome}} for {{project_root}}\r\n' },
];

describe('PromptRepository', () => {
  const repo = createPromptRepository(sources);

  it('lists ids sorted and answers has/get', () => {
    expect(repo.ids()).toEqual(['agent/tool_followup', 'base/project_root_context', 'qa/system']);
    expect(repo.has('qa/system')).toBe(true);
    expect(repo.has('qa/missing')).toBe(false);
    expect(repo.get('qa/system')).toEqual({ id: 'qa/system', body: 'Review.', variables: [] });
  });

  it('normalises line endings and trims, so every checkout gives the same bytes', () => {
    expect(repo.get('agent/tool_followup').body).toBe('{{tool_summary}}\n{{last_step_outcome}} for {{project_root}}');
  });

  it('knows which variables a composition needs, in order of first use', () => {
    expect(repo.get('base/project_root_context').variables).toEqual(['project_root']);
    expect(repo.variablesOf(['base/project_root_context', 'agent/tool_followup', 'qa/system'])).toEqual([
      'project_root',
      'tool_summary',
      'last_step_outcome',
    ]);
  });

  it('renders by id', () => {
    expect(repo.render('base/project_root_context', { project_root: '/work' })).toBe('Root is /work; again /work.');
  });

  it('answers an unknown id with NOT_FOUND', () => {
    expect(() => repo.get('agent/nope')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => repo.render('agent/nope', {})).toThrow(StagecraftError);
  });

  it.each([
    ['a duplicate id', [{ id: 'a/b', body: 'x' }, { id: 'a/b', body: 'y' }], 'defined twice'],
    ['an id with an extension', [{ id: 'a/b.md', body: 'x' }], 'not a lower-case path'],
    ['an id with upper case', [{ id: 'ConversationFlow/QA', body: 'x' }], 'not a lower-case path'],
    ['an empty body', [{ id: 'a/b', body: ' \n ' }], 'is empty'],
    ['an unknown variable', [{ id: 'a/b', body: '{{model}}' }], 'unknown variable'],
  ])('refuses to load %s', (_label, bad, message) => {
    expect(() => createPromptRepository(bad)).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining(message) }));
  });
});
