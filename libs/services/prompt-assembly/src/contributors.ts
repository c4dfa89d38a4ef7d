import { previousAttemptContributor, upstreamContextContributor } from '@stagecraft/context';
import { ContributorRegistry, createContributorRegistry, defaultContributors } from '@stagecraft/prompts';

/** The shared defaults, plus the sections that map an assemble request's upstream and previous-attempt context. */
export function serviceContributors(): ContributorRegistry {
  return createContributorRegistry([...defaultContributors().contributors, upstreamContextContributor, previousAttemptContributor]);
}
