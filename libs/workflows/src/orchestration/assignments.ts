import { DelegationTemplate } from '@stagecraft/contracts';
import { QueuedAgent } from './state';

const SLUG = /[^A-Za-z0-9._-]+/g;
const MAX_AGENT_ID = 48;

/** An agent id as an orchestrator wrote it, made safe for run ids and unique within its delegation. */
function safeAgentIds(ids: readonly string[], fallback: string): string[] {
  const seen = new Set<string>();
  return ids.map((raw, index) => {
    const base =
      raw
        .replace(SLUG, '-')
        .replace(/^[-.]+|[-.]+$/g, '')
        .slice(0, MAX_AGENT_ID) || `${fallback}-${index + 1}`;
    let id = base;
    for (let n = 2; seen.has(id); n += 1) id = `${base}-${n}`;
    seen.add(id);
    return id;
  });
}

/** The work agents an orchestrator's delegation asks for, in its order. */
export function assignmentQueue(delegation: DelegationTemplate, agentType: string): QueuedAgent[] {
  const ids = safeAgentIds(
    delegation.assignments.map((a) => a.agentId),
    agentType,
  );
  return delegation.assignments.map((a, index) => {
    const focus = a.subdomainFocus ? `\n\nFocus: ${a.subdomainFocus}` : '';
    const passed = Object.entries(a.contextToPass)
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
      .map(([key, value]) => `- ${key}: ${value}`);
    const context = passed.length > 0 ? `\n\nContext passed to you:\n${passed.join('\n')}` : '';
    const ticketId = a.contextToPass['ticketId'];
    return { agentId: ids[index], index, assignedGoal: `${a.assignedGoal}${focus}${context}`, ...(ticketId ? { ticketId } : {}) };
  });
}
