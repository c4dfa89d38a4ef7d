import { ConsolidationTemplate } from '@stagecraft/contracts';
import { bullets } from './text';

/** What downstream agents act on: the decision, the merged output, resolved conflicts and curated context. Metrics stay in the record. */
export function renderConsolidation(template: ConsolidationTemplate): string {
  const { decision } = template;
  const lines = [
    `### Consolidation ${template.resultId}`,
    '',
    `Decision: ${decision.decisionType}${decision.requestedPhase ? ` (${decision.requestedPhase})` : ''}: ${decision.rationale}`,
    `Merged from: ${template.inputs.map((i) => `${i.inputType} ${i.inputContextId}`).join(', ')}`,
    '',
    template.consolidatedOutput,
  ];
  if (template.conflictResolutions.length > 0) {
    lines.push(
      '',
      'Conflicts already resolved:',
      bullets(template.conflictResolutions.map((c) => `${c.conflictDescription}: ${c.resolutionApproach}`)),
    );
  }
  for (const curation of template.curations) lines.push('', `#### ${curation.title}`, '', curation.content);
  return lines.join('\n');
}
