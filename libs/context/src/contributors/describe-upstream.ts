import { StagecraftError, UpstreamContext } from '@stagecraft/contracts';
import { firstLine } from './text';

/** The context id each kind of upstream context is known by. */
export function upstreamId(context: UpstreamContext): string {
  switch (context.kind) {
    case 'delegation':
    case 'consolidation':
      return context.template.resultId;
    case 'discovery':
      return context.report.resultId;
    case 'result':
      return context.resultId;
    default: {
      const unreachable: never = context;
      throw new StagecraftError('VALIDATION', `unknown upstream context ${JSON.stringify(unreachable)}`);
    }
  }
}

/** One line per context, for lists where the full section would repeat what the prompt already holds. */
export function describeUpstream(context: UpstreamContext): string {
  const id = upstreamId(context);
  switch (context.kind) {
    case 'delegation':
      return `delegation ${id}: ${firstLine(context.template.goal)}`;
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
