import { projectMapContributor, projectMapSection } from './project-map';

describe('project-map contributor', () => {
  it('renders the map under its own heading', () => {
    const section = projectMapSection('Layout:\n- src/ (3 files; typescript)');
    expect(section).toBe(
      [
        '## Project map',
        'From the codebase index: the top-level layout and where programs start. `find_symbol`, `list_entry_points` and `search_index` look further.',
        'Layout:\n- src/ (3 files; typescript)',
      ].join('\n\n'),
    );
  });

  it('adds nothing without a map, or with an empty one', () => {
    expect(projectMapSection(undefined)).toBeNull();
    expect(projectMapSection('  \n')).toBeNull();
    const context = { agentType: 'main', policy: {} as never, variables: {} as never, instructions: [] };
    expect(projectMapContributor.contribute(context)).toBeNull();
  });
});
