import { createHash } from 'node:crypto';
import { PromptAssembleReply, PromptAssembleRequest } from '@stagecraft/contracts';
import { ContributorRegistry, createContributorRegistry } from './contributors/registry';
import { instructionXmlLine } from './instructions';
import { PromptRepository } from './repository';

const NO_CONTRIBUTORS = createContributorRegistry();

/** Contributors appear in `promptIds` under this prefix, which no prompt id can start with. */
export const CONTRIBUTOR_ID_PREFIX = 'contributor:';

/**
 * Seed 002 §5.2: the policy's prompts in its order, then contributor sections by priority and name,
 * then one XML line per active instruction. Same request and same prompts give the same bytes and hash.
 */
export function assemblePrompt(
  repo: PromptRepository,
  request: PromptAssembleRequest,
  contributors: ContributorRegistry = NO_CONTRIBUTORS,
): PromptAssembleReply {
  const { policy, variables, instructions, agentType, upstream, previousAttempt, recalled, projectMap } = request;
  const sections = policy.prompts.map((id) => repo.render(id, variables));
  const promptIds = [...policy.prompts];

  for (const contributor of contributors.select(agentType, policy)) {
    const text = contributor.contribute({
      agentType,
      policy,
      variables,
      instructions,
      upstream,
      previousAttempt,
      recalled,
      projectMap,
    })?.trim() ?? '';
    if (text.length === 0) continue;
    sections.push(text);
    promptIds.push(`${CONTRIBUTOR_ID_PREFIX}${contributor.name}`);
  }

  if (instructions.length > 0) sections.push(instructions.map(instructionXmlLine).join('\n'));

  const system = `${sections.join('\n\n')}\n`;
  return { system, promptIds, hash: createHash('sha256').update(system, 'utf8').digest('hex') };
}
