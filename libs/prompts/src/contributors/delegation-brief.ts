import { DelegateReasoning } from '@stagecraft/contracts';
import { PromptContributor } from './contributor';

/**
 * A specialist needs the brief it was delegated with. The instruction's XML line shows only the size
 * (seed 000), so the full text enters the prompt here, and only while a delegation is active.
 */
export const delegationBriefContributor: PromptContributor = {
  name: 'delegation-brief',
  agentTypes: 'all',
  priority: 10,
  appliesTo: (policy) => policy.delegation.depth > 0,
  contribute: ({ instructions }) => {
    const active = instructions.filter((i): i is DelegateReasoning => i.kind === 'DelegateReasoning').at(-1);
    return active === undefined ? null : `## Specialist brief\n\n${active.agentPrompt.trim()}`;
  },
};
