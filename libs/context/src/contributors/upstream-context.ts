import { StagecraftError, UpstreamContext } from '@stagecraft/contracts';
import type { PromptContributor } from '@stagecraft/prompts';
import { renderConsolidation } from './render-consolidation';
import { renderDelegation } from './render-delegation';
import { renderDiscovery } from './render-discovery';
import { renderDiscoveryCollector } from './render-discovery-collector';
import { renderPlanning, renderPlanningCollector, renderTicket, renderTicketResult } from './render-tickets';
import { bullets, capped } from './text';

export const MAX_GOAL_CHARS = 20_000;
export const MAX_CONFLICTS = 50;
export const MAX_RESULT_CHARS = 20_000;

type MergeConflicts = Extract<UpstreamContext, { kind: 'merge-conflicts' }>['conflicts'];

function renderMergeConflicts(conflicts: MergeConflicts): string {
  const shown = conflicts.slice(0, MAX_CONFLICTS);
  const lines = [
    '### Merge conflicts',
    '',
    'More than one ticket agent changed these files, so they were not merged. Resolve each file in the project root with the write tools, and record each as a conflict resolution naming the contexts below as its conflicting inputs.',
    '',
    bullets(shown.map((c) => `${c.path}: changed by ${c.agentIds.join(', ')} (contexts ${c.contextIds.join(', ')})`)),
  ];
  if (conflicts.length > shown.length) lines.push(`[… ${conflicts.length - shown.length} more files not shown]`);
  return lines.join('\n');
}

export function renderUpstream(context: UpstreamContext, agentType: string): string {
  switch (context.kind) {
    case 'goal':
      return ['### Goal', '', `Workflow: ${context.workflowRunId}`, '', capped(context.goal, MAX_GOAL_CHARS)].join('\n');
    case 'delegation':
      return renderDelegation(context.template, agentType);
    case 'discovery-collector':
      return renderDiscoveryCollector(context.result);
    case 'planning':
      return renderPlanning(context.result);
    case 'planning-collector':
      return renderPlanningCollector(context.result);
    case 'ticket':
      return renderTicket(context.ticket);
    case 'ticket-result':
      return renderTicketResult(context.result);
    case 'merge-conflicts':
      return renderMergeConflicts(context.conflicts);
    case 'consolidation':
      return renderConsolidation(context.template);
    case 'discovery':
      return renderDiscovery(context.report);
    case 'result':
      return `### Result from ${context.agentType} ${context.resultId}\n\n${capped(context.output, MAX_RESULT_CHARS)}`;
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
