import { StagecraftError, UpstreamContext } from '@stagecraft/contracts';
import { firstLine } from './text';

/**
 * The id each kind of upstream context is known by: the context id of the document it carries; for the
 * goal, the workflow's id; for a ticket, its ticketId; for merge conflicts, the conflicting contexts.
 */
export function upstreamId(context: UpstreamContext): string {
  switch (context.kind) {
    case 'goal':
      return context.workflowRunId;
    case 'delegation':
    case 'consolidation':
      return context.template.resultId;
    case 'discovery':
      return context.report.resultId;
    case 'discovery-collector':
    case 'planning':
    case 'planning-collector':
    case 'ticket-result':
      return context.result.resultId;
    case 'ticket':
      return context.ticket.ticketId;
    case 'merge-conflicts':
      return [...new Set(context.conflicts.flatMap((c) => c.contextIds))].sort().join(', ');
    case 'result':
      return context.resultId;
    default: {
      const unreachable: never = context;
      throw new StagecraftError('VALIDATION', `unknown upstream context ${JSON.stringify(unreachable)}`);
    }
  }
}

const MAX_LISTED = 5;
const listed = (items: readonly string[]): string =>
  items.length > MAX_LISTED ? `${items.slice(0, MAX_LISTED).join(', ')} and ${items.length - MAX_LISTED} more` : items.join(', ');

/** One line per context, for lists where the full section would repeat what the prompt already holds. */
export function describeUpstream(context: UpstreamContext): string {
  const id = upstreamId(context);
  switch (context.kind) {
    case 'goal':
      return `goal of workflow ${id}: ${firstLine(context.goal)}`;
    case 'delegation':
      return `delegation ${id}: ${firstLine(context.template.goal)}`;
    case 'discovery-collector':
      return `discovery collector result ${id}: ${context.result.decision.decisionType}, ${firstLine(context.result.discoveryCuration.summary)}`;
    case 'planning':
      return `planning result ${id}: ${context.result.tickets.length} ticket(s), ${firstLine(context.result.summary)}`;
    case 'planning-collector':
      return `planning collector result ${id}: ${context.result.decision.decisionType}, ${context.result.tickets.length} ticket(s)`;
    case 'ticket':
      return `ticket ${id}: ${firstLine(context.ticket.title)}`;
    case 'ticket-result':
      return `ticket result ${id}: ticket ${context.result.ticketId} ${context.result.status}`;
    case 'merge-conflicts':
      return `merge conflicts in ${listed(context.conflicts.map((c) => c.path))}`;
    case 'consolidation':
      return `consolidation ${id}: ${context.template.decision.decisionType}, ${firstLine(context.template.decision.rationale)}`;
    case 'discovery':
      return `discovery ${id}: ${firstLine(context.report.architectureOverview)}`;
    case 'result':
      return `result ${id} from ${context.agentType}: ${firstLine(context.output)}`;
    default: {
      const unreachable: never = context;
      throw new StagecraftError('VALIDATION', `unknown upstream context ${JSON.stringify(unreachable)}`);
    }
  }
}
