import { StagecraftError, UpstreamContext } from '@stagecraft/contracts';
import type { PromptContributor } from '@stagecraft/prompts';
import { renderConsolidation } from './render-consolidation';
import { renderDelegation } from './render-delegation';
import { renderDiscovery } from './render-discovery';

export function renderUpstream(context: UpstreamContext, agentType: string): string {
  switch (context.kind) {
    case 'delegation':
      return renderDelegation(context.template, agentType);
    case 'consolidation':
      return renderConsolidation(context.template);
    case 'discovery':
      return renderDiscovery(context.report);
    case 'result':
      return `### Result from ${context.agentType} ${context.resultId}\n\n${context.output}`;
    default: {
      const unreachable: never = context;
      throw new StagecraftError('VALIDATION', `unknown upstream context ${JSON.stringify(unreachable)}`);
    }
  }
}

const INTRO =
  '## Upstream context\n\nThe work before yours produced the following, in order. Build on it rather than redoing it, and name the context id when you rely on one.';

/** Seed 001 §2: each typed upstream context, in the order the caller gave, right after the delegation brief. */
export const upstreamContextContributor: PromptContributor = {
  name: 'upstream-context',
  agentTypes: 'all',
  priority: 20,
  contribute: ({ upstream, agentType }) =>
    upstream === undefined || upstream.length === 0 ? null : [INTRO, ...upstream.map((u) => renderUpstream(u, agentType))].join('\n\n'),
};
