import { previousAttemptContributor, upstreamContextContributor } from '@stagecraft/workflows';
import { ContributorRegistry, createContributorRegistry, defaultContributors, workflowRoleContributor } from '@stagecraft/prompts';
import type { PromptRepository } from '@stagecraft/prompts';

/**
 * The shared defaults, the role of a workflow agent (from the prompts in `repo`), and the sections that
 * map an assemble request's upstream and previous-attempt context.
 */
export function serviceContributors(repo: PromptRepository): ContributorRegistry {
  return createContributorRegistry([
    ...defaultContributors().contributors,
    workflowRoleContributor(repo),
    upstreamContextContributor,
    previousAttemptContributor,
  ]);
}
