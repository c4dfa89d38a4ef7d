import { TEMPLATE_LIMITS } from '@stagecraft/contracts';
import { listedFiles } from '../demo/project-facts';
import { oneLine } from '../demo/conversation';
import { MergeConflict, TicketInfo, UpstreamSection, WorkflowRequest, goalOf, sectionsOf, ticketsIn } from './read-workflow-request';

/** What a collector decides; the rationale defaults to one naming the decision. */
export interface ScriptedDecision {
  decisionType: 'ADVANCE' | 'RERUN' | 'ROUTE_BACK' | 'STOP';
  rationale?: string;
  rerunAgentIds?: string[];
  requestedPhase?: string;
}

/** Every document leaves out `schemaVersion`, `resultId` and `upstreamContextId`: the workflow sets them. */
export type Document = Record<string, unknown>;

const TICKET_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** `WORKFLOW_<TICKETID>.md`, unless the options map the ticket elsewhere. */
export const ticketFile = (ticketId: string, files: Readonly<Record<string, string>> = {}): string =>
  files[ticketId] ?? `WORKFLOW_${ticketId.toUpperCase()}.md`;

/** The ticket an assignment names: `ticketId: T1` (as passed context), `ticket T1`, or the number of `planning-agent-2`. */
export function assignedTicketId(user: string): string | null {
  const named =
    /\bticketId\b["']?\s*[:=]\s*["']?([A-Za-z0-9][A-Za-z0-9._-]{0,63})/.exec(user)?.[1] ??
    /\bticket ([A-Z0-9][A-Za-z0-9._-]{0,63})\b/.exec(user)?.[1];
  if (named !== undefined && TICKET_ID.test(named)) return named;
  const numbered = /\b(?:planning|ticket)-agent-(\d+)\b/.exec(user)?.[1];
  return numbered === undefined ? null : `T${numbered}`;
}

export function delegation(r: WorkflowRequest, agentsPerPhase: number): Document {
  const goal = oneLine(goalOf(r), 2_000);
  const agentType = r.agentType.replace(/-orchestrator$/, '-agent');
  const assignments =
    r.phase === 'tickets'
      ? ticketsToImplement(r, agentsPerPhase).map((t) => ({
          agentId: `ticket-${t.ticketId}`,
          agentType,
          assignedGoal: `Implement ticket ${t.ticketId}: ${t.title}`,
          contextToPass: { ticketId: t.ticketId },
        }))
      : Array.from({ length: agentsPerPhase }, (_, i) => ({
          agentId: `${agentType}-${i + 1}`,
          agentType,
          assignedGoal:
            r.phase === 'planning'
              ? `Plan ticket T${i + 1} for: ${goal}`
              : `Explore part ${i + 1} of ${agentsPerPhase} of the project for: ${goal}`,
          ...(r.phase === 'planning'
            ? { contextToPass: { ticketId: `T${i + 1}` } }
            : { subdomainFocus: `part ${i + 1} of ${agentsPerPhase}` }),
        }));
  return {
    goal,
    delegationRationale: `${assignments.length} ${agentType} assignment(s), one per ${r.phase === 'tickets' ? 'ticket of the plan' : 'part of the work'}.`,
    assignments: assignments.slice(0, TEMPLATE_LIMITS.assignmentsPerDelegation),
  };
}

/** The tickets of the planning collector's result, in its order; without a plan, the tickets planning would have made. */
function ticketsToImplement(r: WorkflowRequest, agentsPerPhase: number): Array<Pick<TicketInfo, 'ticketId' | 'title'>> {
  const tickets = unique(sectionsOf(r, 'planning-collector').flatMap((s) => ticketsIn(s.body, '####')));
  if (tickets.length > 0) return tickets;
  return Array.from({ length: agentsPerPhase }, (_, i) => ({ ticketId: `T${i + 1}`, title: `Ticket T${i + 1}` }));
}

export function discoveryReport(r: WorkflowRequest, listing: string | null): Document {
  const files = listing === null ? [] : listedFiles(listing).slice(0, 5);
  return {
    architectureOverview:
      files.length > 0
        ? `The project root holds ${files.length} file(s) looked at here: ${files.join(', ')}.`
        : `The project was not listed; this report rests on the assignment: ${oneLine(r.user, 200)}`,
    fileReferences: files.map((filePath, i) => ({
      filePath,
      startLine: 1,
      endLine: 1,
      relevanceScore: Number((1 - i * 0.1).toFixed(2)),
      snippet: '',
      tags: ['root'],
    })),
    keyPatterns: ['files at the project root describe the project'],
    integrationPoints: files.slice(0, 1).map((f) => `${f} is where a change would start`),
  };
}

export function planningResult(r: WorkflowRequest, files: Readonly<Record<string, string>>): Document {
  const ticketId = assignedTicketId(r.user) ?? 'T1';
  const goal = oneLine(goalOf(r), 150);
  return {
    summary: `One ticket, ${ticketId}, for: ${goal}`,
    tickets: [
      {
        ticketId,
        title: `Record ${ticketId} for: ${oneLine(goal, 120)}`,
        description: `Write ${ticketFile(ticketId, files)} naming ticket ${ticketId} and its title.`,
        acceptanceCriteria: [`${ticketFile(ticketId, files)} names ticket ${ticketId}`],
        files: [ticketFile(ticketId, files)],
        priority: 'medium',
      },
    ],
  };
}

/** The ticket agent's own ticket: from its `### Ticket` section, else from its assignment. */
export function ownTicket(r: WorkflowRequest, files: Readonly<Record<string, string>>): TicketInfo {
  const fromUpstream = r.sections.flatMap((s) => (s.inputType === null ? ticketsIn(`### ${s.heading}\n${s.body}`, '###') : []))[0];
  if (fromUpstream !== undefined) {
    return fromUpstream.files.length > 0 ? fromUpstream : { ...fromUpstream, files: [ticketFile(fromUpstream.ticketId, files)] };
  }
  const ticketId = assignedTicketId(r.user) ?? 'T1';
  return { ticketId, title: oneLine(r.user, 120) || `Ticket ${ticketId}`, files: [ticketFile(ticketId, files)], acceptanceCriteria: [] };
}

export const ticketContent = (ticket: TicketInfo): string => `# Ticket ${ticket.ticketId}\n\n${ticket.title}\n`;

export function ticketResult(ticket: TicketInfo, written: boolean): Document {
  return {
    ticketId: ticket.ticketId,
    status: written ? 'done' : 'blocked',
    summary: written
      ? `Wrote ${ticket.files[0]} for ticket ${ticket.ticketId}: ${ticket.title}`
      : 'No write tool was offered, so nothing was changed.',
    filesChanged: written ? [ticket.files[0]] : [],
  };
}

export const resolvedContent = (conflict: MergeConflict): string =>
  `# Resolved: ${conflict.path}\n\nKeeps the changes of ${conflict.agentIds.join(' and ')}.\n`;

function consolidation(r: WorkflowRequest, decision: ScriptedDecision, output: string): Document {
  const inputs = r.sections.flatMap((s) => (s.inputType !== null && s.contextId !== null ? [input(s)] : []));
  return {
    inputs,
    mergeStrategy: `Kept every input (${inputs.length}); nothing needed to be dropped.`,
    consolidatedOutput: output,
    decision: {
      decisionType: decision.decisionType,
      rationale: decision.rationale ?? `${decision.decisionType}: the inputs were consolidated by the scripted collector.`,
      ...(decision.rerunAgentIds ? { rerunAgentIds: decision.rerunAgentIds } : {}),
      ...(decision.requestedPhase ? { requestedPhase: decision.requestedPhase } : {}),
    },
  };
}

const input = (s: UpstreamSection) => ({
  inputContextId: s.contextId,
  inputType: s.inputType,
  inputSummary: oneLine(s.body.trim().split('\n', 1)[0] || s.heading, 160),
});

export function discoveryCollectorResult(r: WorkflowRequest, decision: ScriptedDecision): Document {
  const reports = sectionsOf(r, 'discovery');
  const files = unique(reports.flatMap((s) => [...s.body.matchAll(/^- (\S+):\d+-\d+ \(relevance/gm)].map((m) => m[1])));
  return {
    ...consolidation(r, decision, `${reports.length} discovery report(s) merged.`),
    unifiedCodeMap: {
      summary: `${files.length} file(s) across ${reports.length} report(s).`,
      files: files.map((path) => ({ path, role: 'seen by discovery', tags: [] })),
    },
    recommendations: [
      {
        recommendationId: 'r-1',
        title: 'Plan from the discovered files',
        description: `Start from: ${files.join(', ') || 'the project root'}.`,
        priority: 'medium',
        supportingDiscoveryIds: reports.flatMap((s) => (s.contextId ? [s.contextId] : [])),
        relatedFilePaths: files,
      },
    ],
    discoveryCuration: { summary: `Discovery covered ${files.length} file(s).`, keyFiles: files },
  };
}

export function planningCollectorResult(r: WorkflowRequest, decision: ScriptedDecision): Document {
  const tickets = unique(sectionsOf(r, 'planning').flatMap((s) => ticketsIn(s.body, '####'))).slice(0, TEMPLATE_LIMITS.ticketsPerPlan);
  return {
    ...consolidation(r, decision, `${tickets.length} ticket(s) planned.`),
    tickets: tickets.map((t) => ({
      ticketId: t.ticketId,
      title: t.title,
      description: `Carry out ticket ${t.ticketId}: ${t.title}`,
      acceptanceCriteria: t.acceptanceCriteria.length > 0 ? t.acceptanceCriteria : [`ticket ${t.ticketId} is done`],
      files: t.files,
    })),
    planningCuration: { summary: `Do the ${tickets.length} ticket(s) in the order planned.`, order: tickets.map((t) => t.ticketId) },
  };
}

export function ticketCollectorResult(
  r: WorkflowRequest,
  decision: ScriptedDecision,
  conflicts: MergeConflict[],
  inDocument = false,
): Document {
  const outcomes = sectionsOf(r, 'ticket-result').flatMap((s) => {
    const m = /^Ticket (\S+): (done|partial|blocked)$/m.exec(s.body);
    return m ? [{ ticketId: m[1], status: m[2] }] : [];
  });
  return {
    ...consolidation(r, decision, `${outcomes.length} ticket result(s) checked; ${conflicts.length} merge conflict(s) resolved.`),
    conflictResolutions: conflicts.map((c) => ({
      conflictDescription: `${c.path} was changed by ${c.agentIds.join(' and ')}`,
      resolutionApproach: inDocument
        ? `Gave the resolved content of ${c.path}, keeping the changes of ${c.agentIds.join(' and ')}.`
        : `Wrote ${c.path} in the project root keeping the changes of ${c.agentIds.join(' and ')}.`,
      conflictingInputs: c.contextIds,
      ...(inDocument ? { path: c.path, resolvedContent: resolvedContent(c) } : {}),
    })),
    ticketOutcomes: outcomes,
  };
}

function unique<T extends string | TicketInfo>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = typeof item === 'string' ? item : item.ticketId;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A required field each document type cannot do without: dropping it makes the answer fail its schema. */
export const REQUIRED_FIELD: Record<string, string> = {
  orchestrator: 'assignments',
  collector: 'decision',
  'discovery-agent': 'architectureOverview',
  'planning-agent': 'tickets',
  'ticket-agent': 'status',
};
