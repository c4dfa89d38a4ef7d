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

const fenced = (text: string | null | undefined): string => (text === null || text === undefined ? '(no file)' : `\`\`\`\n${text}\n\`\`\``);

/** The three versions of one conflicting file and the diff from the user's to the ticket's (docs/decisions/0036). */
function renderVersions(c: MergeConflicts[number]): string[] {
  const lines = [`#### ${c.path}`, ''];
  if (c.reason) lines.push(`Why: ${c.reason}.`);
  if (c.kept) lines.push(`The ticket's version is kept at ${c.kept}; the project root keeps the user's.`);
  if (c.versions === undefined) return lines;
  return [
    ...lines,
    '',
    'Base (the snapshot the ticket started from):',
    fenced(c.versions.base),
    "User's version (in the project root now):",
    fenced(c.versions.ours),
    "Ticket's version:",
    fenced(c.versions.theirs),
    "Unified diff from the user's version to the ticket's:",
    `\`\`\`diff\n${c.versions.diff}\n\`\`\``,
  ];
}

function renderMergeConflicts(conflicts: MergeConflicts): string {
  const shown = conflicts.slice(0, MAX_CONFLICTS);
  const lines = [
    '### Merge conflicts',
    '',
    "These files were not merged: the user changed them since the ticket agents started, or more than one ticket changed the same lines. The project root keeps the user's version and the ticket's version is kept beside it, so nothing is lost. To resolve a file, give a conflict resolution with its `path` and the whole resolved file as `resolvedContent` (keep the user's changes), naming the contexts below as its conflicting inputs; a file you do not resolve is left for the user.",
    '',
    bullets(shown.map((c) => `${c.path}: changed by ${c.agentIds.join(', ')} (contexts ${c.contextIds.join(', ')})`)),
    ...shown.flatMap((c) => ['', ...renderVersions(c)]),
  ];
  if (conflicts.length > shown.length) lines.push(`[… ${conflicts.length - shown.length} more files not shown]`);
  return lines.join('\n');
}

export function renderUpstream(context: UpstreamContext, agentType: string): string {
  switch (context.kind) {
    case 'goal':
      return ['### Goal', '', `Workflow: ${context.workflowRunId}`, '', capped(context.goal, MAX_GOAL_CHARS)].join('\n');
    case 'delegation':
      return renderDelegation(context.template, agentType, context.assignmentIndex);
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
  runWide: true,
  agentTypes: 'all',
  priority: 20,
  contribute: ({ upstream, agentType }) =>
    upstream === undefined || upstream.length === 0 ? null : [INTRO, ...upstream.map((u) => renderUpstream(u, agentType))].join('\n\n'),
};
