import { PromptContributor } from './contributor';

/** The project map as a prompt section; null when the caller sent none. */
export function projectMapSection(map: string | undefined): string | null {
  const text = map?.trim() ?? '';
  if (text.length === 0) return null;
  return [
    '## Project map',
    'From the codebase index: the top-level layout and where programs start. `find_symbol`, `list_entry_points` and `search_index` look further.',
    text,
  ].join('\n\n');
}

/** Seed 002 §8: warmup starts from the project's entry points and layout (the conversation service asks the index). */
export const projectMapContributor: PromptContributor = {
  name: 'project-map',
  agentTypes: 'all',
  priority: 80,
  contribute: ({ projectMap }) => projectMapSection(projectMap),
};
