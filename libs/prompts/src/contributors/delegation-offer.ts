import { StagePolicy } from '@stagecraft/contracts';
import { PromptContributor } from './contributor';

/** The run decider reads delegation tags only from an agent run's acting stages. */
const acting = (policy: StagePolicy) => policy.userMode === 'agent' && (policy.stage === 'act' || policy.stage === 'tool_followup');

/**
 * Tells the model that delegation exists and how to ask for it (docs/decisions/0008, 0057), only where
 * the run would accept it: an acting stage below the run's depth limit. Whether it is offered changes as
 * specialists take over, so it stays in the stage part of a split request, never in the shared head.
 */
export const delegationOfferContributor: PromptContributor = {
  name: 'delegation-offer',
  agentTypes: 'all',
  priority: 20,
  appliesTo: acting,
  contribute: ({ policy, maxDelegationDepth }) => {
    const { depth, chain } = policy.delegation;
    if (maxDelegationDepth === undefined || depth >= maxDelegationDepth) return null;
    const taken = ['main', ...chain].map((name) => `\`${name}\``).join(', ');
    return `## Delegating to a specialist

You can hand a self-contained part of this task to a specialist (delegation depth ${depth} of at most ${maxDelegationDepth}). Reply with the tag alone, without tool calls:

<delegate-reasoning agent="test-writer">The specialist's full brief: the goal, the files involved, and what to report back.</delegate-reasoning>

- \`agent\` names the specialist: letters, digits, \`.\`, \`_\`, \`:\` or \`-\`, and not a name already in the chain (${taken}).
- From the next step on, the specialist does that part with the same tools and rules, its brief in the instructions. Its replies are marked intermediate: they stay part of the work and never become the user's answer.
- The specialist hands back with <return-control>what it found or changed</return-control>; control returns to the agent that delegated, with that result in the conversation, and the work goes on from there.
- Delegate when a focused brief helps (a review, an analysis, one well-bounded change); otherwise do the work yourself.`;
  },
};
