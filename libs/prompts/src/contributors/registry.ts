import { StagePolicy, StagecraftError } from '@stagecraft/contracts';
import { PromptContributor } from './contributor';

export interface ContributorRegistry {
  /** Every contributor, in assembly order. */
  readonly contributors: readonly PromptContributor[];
  /** The contributors for this agent type and policy, in assembly order. */
  select(agentType: string, policy: StagePolicy): PromptContributor[];
}

/** Code-unit comparison, not localeCompare: the order must not depend on the machine's locale. */
function byPriorityThenName(a: PromptContributor, b: PromptContributor): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function validate(contributor: PromptContributor): void {
  const problems: string[] = [];
  if (contributor.name.trim().length === 0) problems.push('name is blank');
  if (!Number.isFinite(contributor.priority)) problems.push('priority is not a finite number');
  if (contributor.agentTypes !== 'all' && contributor.agentTypes.length === 0) problems.push("agentTypes is empty (use 'all')");
  if (problems.length > 0) {
    throw new StagecraftError(
      'VALIDATION',
      `prompt contributor "${contributor.name}": ${problems.join('; ')}`,
      problems.map((message) => ({ path: ['contributors', contributor.name], message })),
    );
  }
}

export function createContributorRegistry(contributors: readonly PromptContributor[] = []): ContributorRegistry {
  const names = new Set<string>();
  for (const contributor of contributors) {
    validate(contributor);
    if (names.has(contributor.name)) {
      throw new StagecraftError('VALIDATION', `prompt contributor "${contributor.name}" is registered twice`, [
        { path: ['contributors', contributor.name], message: 'duplicate name' },
      ]);
    }
    names.add(contributor.name);
  }
  const ordered = Object.freeze([...contributors].sort(byPriorityThenName));
  return {
    contributors: ordered,
    select: (agentType, policy) =>
      ordered.filter(
        (c) => (c.agentTypes === 'all' || c.agentTypes.includes(agentType)) && (c.appliesTo === undefined || c.appliesTo(policy)),
      ),
  };
}
