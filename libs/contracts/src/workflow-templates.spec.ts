import {
  DiscoveryCollectorResult,
  PlanningAgentResult,
  PlanningCollectorResult,
  PlanningTicket,
  TEMPLATE_LIMITS,
  TEMPLATE_SCHEMA_VERSION,
  TicketAgentResult,
  TicketCollectorResult,
} from './templates';

const id = (agent: string, n: number) => `wf-1/${agent}/00${n}/2026-01-19T10:3${n}:00Z`;
const consolidation = {
  schemaVersion: TEMPLATE_SCHEMA_VERSION,
  resultId: id('collector', 5),
  inputs: [{ inputContextId: id('agent', 3), inputType: 'discovery', inputSummary: 'the CLI' }],
  mergeStrategy: 'union of findings',
  consolidatedOutput: 'The CLI parses flags in src/cli.ts.',
  decision: { decisionType: 'ADVANCE', rationale: 'Complete.' },
};
const ticket = { ticketId: 'T-1', title: 'Add --json', description: 'Print JSON.', acceptanceCriteria: ['prints JSON'] };
const agentResult = { schemaVersion: TEMPLATE_SCHEMA_VERSION, resultId: id('planning-agent', 3), upstreamContextId: id('planning-orchestrator', 2) };

describe('workflow templates (seeds 001/003)', () => {
  it('fill a discovery collector result’s defaults and bound its recommendations', () => {
    const result = {
      ...consolidation,
      unifiedCodeMap: { summary: 'One CLI.' },
      discoveryCuration: { summary: 'Change src/cli.ts.' },
    };
    expect(DiscoveryCollectorResult.parse(result)).toMatchObject({
      unifiedCodeMap: { summary: 'One CLI.', files: [], links: [] },
      recommendations: [],
      querySpecificFindings: {},
      discoveryCuration: { summary: 'Change src/cli.ts.', keyFiles: [], constraints: [] },
      curations: [],
    });
    const recommendation = { recommendationId: 'r', title: 't', description: 'd', priority: 'high' };
    const many = Array.from({ length: TEMPLATE_LIMITS.recommendationsPerResult + 1 }, () => recommendation);
    expect(DiscoveryCollectorResult.safeParse({ ...result, recommendations: many.slice(1) }).success).toBe(true);
    expect(DiscoveryCollectorResult.safeParse({ ...result, recommendations: many }).success).toBe(false);
    expect(DiscoveryCollectorResult.safeParse({ ...result, recommendations: [{ ...recommendation, priority: 'urgent' }] }).success).toBe(false);
    expect(DiscoveryCollectorResult.safeParse({ ...result, discoveryCuration: undefined }).success).toBe(false);
  });

  it('check a ticket’s id, title and acceptance criteria, and fill its defaults', () => {
    expect(PlanningTicket.parse(ticket)).toEqual({ ...ticket, files: [], dependsOn: [], priority: 'medium' });
    for (const ticketId of ['a b', '-x', '', 'x'.repeat(65), 'T/1']) expect(PlanningTicket.safeParse({ ...ticket, ticketId }).success).toBe(false);
    expect(PlanningTicket.safeParse({ ...ticket, acceptanceCriteria: [] }).success).toBe(false);
    expect(PlanningTicket.safeParse({ ...ticket, title: 'x'.repeat(201) }).success).toBe(false);
    expect(PlanningTicket.safeParse({ ...ticket, description: 'x'.repeat(TEMPLATE_LIMITS.textChars + 1) }).success).toBe(false);
  });

  it('require a planning agent to plan between one ticket and the limit', () => {
    const plan = { ...agentResult, summary: 'One ticket.', tickets: [ticket] };
    expect(PlanningAgentResult.parse(plan).tickets[0].priority).toBe('medium');
    expect(PlanningAgentResult.safeParse({ ...plan, tickets: [] }).success).toBe(false);
    const tooMany = Array.from({ length: TEMPLATE_LIMITS.ticketsPerPlan + 1 }, (_, i) => ({ ...ticket, ticketId: `T-${i}` }));
    expect(PlanningAgentResult.safeParse({ ...plan, tickets: tooMany }).success).toBe(false);
    expect(PlanningAgentResult.safeParse({ ...plan, schemaVersion: '2.0.0' }).success).toBe(false);
  });

  it('give the planning collector its tickets and curation', () => {
    const result = { ...consolidation, tickets: [ticket], planningCuration: { summary: 'T-1 only.', order: ['T-1'] } };
    expect(PlanningCollectorResult.parse(result).tickets).toHaveLength(1);
    expect(PlanningCollectorResult.parse({ ...result, tickets: undefined }).tickets).toEqual([]);
    expect(PlanningCollectorResult.safeParse({ ...result, planningCuration: undefined }).success).toBe(false);
  });

  it('check a ticket agent’s status and the ticket collector’s outcomes and conflict resolutions', () => {
    const done = { ...agentResult, ticketId: 'T-1', status: 'done', summary: 'Added --json.' };
    expect(TicketAgentResult.parse(done).filesChanged).toEqual([]);
    expect(TicketAgentResult.safeParse({ ...done, status: 'finished' }).success).toBe(false);
    const collected = {
      ...consolidation,
      ticketOutcomes: [{ ticketId: 'T-1', status: 'done' }],
      conflictResolutions: [
        { conflictDescription: 'src/cli.ts changed by two tickets', resolutionApproach: 'kept both flags', conflictingInputs: [id('ticket-agent', 3), id('ticket-agent', 4)] },
      ],
    };
    expect(TicketCollectorResult.parse(collected).conflictResolutions).toHaveLength(1);
    expect(TicketCollectorResult.safeParse({ ...collected, ticketOutcomes: [{ ticketId: 'T-1', status: 'maybe' }] }).success).toBe(false);
    expect(TicketCollectorResult.safeParse({ ...collected, conflictResolutions: [{ ...collected.conflictResolutions[0], conflictingInputs: [] }] }).success).toBe(false);
  });
});
