import {
  DelegationTemplate,
  DiscoveryCollectorResult,
  DiscoveryReport,
  PlanningAgentResult,
  PlanningCollectorResult,
  PlanningTicket,
  TicketAgentResult,
  UpstreamContext,
} from '@stagecraft/contracts';
import { AgentRun, PhaseEntry, StartedWorkflow, agentRun } from './state';

const consolidatedOf = <T>(s: StartedWorkflow, phase: string, kind: 'discovery-collector' | 'planning-collector'): UpstreamContext[] => {
  const c = s.consolidated[phase];
  return c === undefined ? [] : [{ kind, result: c.result as T } as UpstreamContext];
};
const discovery = (s: StartedWorkflow) => consolidatedOf<DiscoveryCollectorResult>(s, 'discovery', 'discovery-collector');
const planning = (s: StartedWorkflow) => consolidatedOf<PlanningCollectorResult>(s, 'planning', 'planning-collector');
const goal = (s: StartedWorkflow): UpstreamContext => ({ kind: 'goal', workflowRunId: s.start.workflowId, goal: s.start.goal });

/** What a work agent that did not produce its document leaves for its collector. */
function failedResult(run: AgentRun): UpstreamContext {
  const why = run.error?.message ?? (run.output || 'no answer');
  return {
    kind: 'result',
    resultId: run.contextId,
    agentType: run.agentType,
    output: `This agent did not complete its work (${run.status}): ${why}`,
  };
}

function workResults(s: StartedWorkflow, entry: PhaseEntry): UpstreamContext[] {
  return entry.workAgents.flatMap((agentId) => {
    const run = agentRun(s, entry, agentId);
    if (run === undefined) return [];
    if (run.status !== 'completed') return [failedResult(run)];
    switch (run.agentType) {
      case 'discovery-agent':
        return [{ kind: 'discovery', report: run.result as DiscoveryReport }];
      case 'planning-agent':
        return [{ kind: 'planning', result: run.result as PlanningAgentResult }];
      case 'ticket-agent':
        return [{ kind: 'ticket-result', result: run.result as TicketAgentResult }];
      default:
        return [{ kind: 'result', resultId: run.contextId, agentType: run.agentType, output: run.output ?? '' }];
    }
  });
}

const orchestratorDelegation = (s: StartedWorkflow, entry: PhaseEntry): DelegationTemplate | undefined => {
  const run = entry.orchestrator === null ? undefined : agentRun(s, entry, entry.orchestrator);
  return run?.status === 'completed' ? (run.result as DelegationTemplate) : undefined;
};

/**
 * Seed 001's table of typed upstream context, per agent type: what each agent of a phase builds on.
 * An agent's own assignment is its run's user message, not part of this.
 */
export function upstreamFor(
  s: StartedWorkflow,
  entry: PhaseEntry,
  agentType: string,
  own: { ticket?: PlanningTicket; assignmentIndex?: number } = {},
): UpstreamContext[] {
  const { ticket, assignmentIndex } = own;
  switch (agentType) {
    case 'discovery-orchestrator':
      return [goal(s)];
    case 'discovery-agent': {
      const delegation = orchestratorDelegation(s, entry);
      return delegation
        ? [{ kind: 'delegation', template: delegation, ...(assignmentIndex === undefined ? {} : { assignmentIndex }) }]
        : [];
    }
    case 'discovery-collector':
      return workResults(s, entry);
    case 'planning-orchestrator':
    case 'planning-agent': {
      const d = discovery(s);
      return d.length > 0 ? d : [goal(s)];
    }
    case 'planning-collector':
      return [...workResults(s, entry), ...discovery(s)];
    case 'ticket-orchestrator':
      return [...discovery(s), ...planning(s)];
    case 'ticket-agent':
      return [...discovery(s), ...planning(s), ...(ticket ? [{ kind: 'ticket' as const, ticket }] : [])];
    case 'ticket-collector': {
      const conflicts = entry.merge.conflicts.map((c) => ({
        ...c,
        contextIds: c.agentIds.map((id) => agentRun(s, entry, id)?.contextId ?? s.start.rootContextId),
      }));
      const refused: UpstreamContext[] =
        entry.merge.status === 'refused'
          ? [
              {
                kind: 'result',
                resultId: s.start.rootContextId,
                agentType: 'user',
                output: `The user refused to merge the ticket agents' changes: ${entry.merge.refusal || 'no reason given'}. Nothing was merged.`,
              },
            ]
          : [];
      return [
        ...workResults(s, entry),
        ...discovery(s),
        ...planning(s),
        ...(conflicts.length > 0 ? [{ kind: 'merge-conflicts' as const, conflicts }] : []),
        ...refused,
      ];
    }
    default:
      return [];
  }
}

/** The ticket a ticket agent works on: named in its assignment, else by its place among the assignments. */
export function ticketFor(s: StartedWorkflow, ticketId: string | undefined, index: number): PlanningTicket | undefined {
  const tickets = (s.consolidated['planning']?.result as PlanningCollectorResult | undefined)?.tickets ?? [];
  return (ticketId === undefined ? undefined : tickets.find((t) => t.ticketId === ticketId)) ?? tickets[index];
}
