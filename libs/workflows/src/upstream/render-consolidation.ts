import { ConsolidationTemplate } from '@stagecraft/contracts';
import { bullets, capped } from './text';

/** A consolidation's own text can be long; its head carries the decision and the merge, the record keeps the rest. */
export const MAX_CONSOLIDATED_CHARS = 8_000;

/** The decision, the merged output, resolved conflicts and curated context: what downstream agents act on. */
export function consolidationLines(template: ConsolidationTemplate): string[] {
  const { decision } = template;
  const lines = [
    `Decision: ${decision.decisionType}${decision.requestedPhase ? ` (${decision.requestedPhase})` : ''}: ${decision.rationale}`,
    `Merged from: ${template.inputs.map((i) => `${i.inputType} ${i.inputContextId}`).join(', ')}`,
    '',
    capped(template.consolidatedOutput, MAX_CONSOLIDATED_CHARS),
  ];
  if (template.conflictResolutions.length > 0) {
    lines.push(
      '',
      'Conflicts already resolved:',
      bullets(template.conflictResolutions.map((c) => `${c.conflictDescription}: ${c.resolutionApproach}`)),
    );
  }
  for (const curation of template.curations) lines.push('', `#### ${curation.title}`, '', curation.content);
  return lines;
}

/** Metrics stay in the record: they describe the merge, not the work to do next. */
export function renderConsolidation(template: ConsolidationTemplate): string {
  return [`### Consolidation ${template.resultId}`, '', ...consolidationLines(template)].join('\n');
}
