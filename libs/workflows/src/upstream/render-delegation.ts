import { AgentAssignment, DelegationTemplate } from '@stagecraft/contracts';
import { bullets } from './text';

const assignmentLine = (a: AgentAssignment): string =>
  `${a.agentType} (${a.agentId}): ${a.assignedGoal}${a.subdomainFocus ? ` (focus: ${a.subdomainFocus})` : ''}`;

/**
 * The reader's own assignment: the one at its place when the workflow says which (siblings of a phase
 * share one agent type), else the only one of its type; none when that is ambiguous.
 */
function ownIndex(template: DelegationTemplate, agentType: string, assignmentIndex: number | undefined): number {
  if (assignmentIndex !== undefined) return assignmentIndex < template.assignments.length ? assignmentIndex : -1;
  const ofType = template.assignments.flatMap((a, index) => (a.agentType === agentType ? [index] : []));
  return ofType.length === 1 ? ofType[0] : -1;
}

/** The reader's own assignment first and in full; the others only as boundaries, so work is not done twice. */
export function renderDelegation(template: DelegationTemplate, agentType: string, assignmentIndex?: number): string {
  const own = ownIndex(template, agentType, assignmentIndex);
  const mine = template.assignments.filter((_, index) => index === own);
  const others = template.assignments.filter((_, index) => index !== own);
  const lines = [
    `### Delegation ${template.resultId}`,
    '',
    `Goal: ${template.goal}`,
    `Why the work was split this way: ${template.delegationRationale}`,
  ];
  for (const a of mine) {
    lines.push('', `Your assignment: ${a.assignedGoal}${a.subdomainFocus ? ` (focus: ${a.subdomainFocus})` : ''}`);
    const passed = Object.entries(a.contextToPass).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    if (passed.length > 0) lines.push(bullets(passed.map(([key, value]) => `${key}: ${value}`)));
  }
  if (others.length > 0)
    lines.push('', mine.length > 0 ? 'Assigned to others (not yours):' : 'Assignments:', bullets(others.map(assignmentLine)));
  if (template.contextSelections.length > 0) {
    lines.push('', 'Context selected for this work:');
    lines.push(
      bullets(
        template.contextSelections.map(
          (s) => `from ${s.sourceContextId} (${s.selectionRationale}):\n  ${s.selectedContent.split('\n').join('\n  ')}`,
        ),
      ),
    );
  }
  return lines.join('\n');
}
