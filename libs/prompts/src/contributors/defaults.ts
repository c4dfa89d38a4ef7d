import { delegationBriefContributor } from './delegation-brief';
import { delegationOfferContributor } from './delegation-offer';
import { episodicMemoryContributor } from './episodic-memory';
import { projectMapContributor } from './project-map';
import { recalledMemoriesContributor } from './recalled-memories';
import { ContributorRegistry, createContributorRegistry } from './registry';

/** The contributors every deployment registers; each applies only where the stage's policy calls for it. */
export function defaultContributors(): ContributorRegistry {
  return createContributorRegistry([
    delegationBriefContributor,
    delegationOfferContributor,
    episodicMemoryContributor, recalledMemoriesContributor, projectMapContributor]);
}
