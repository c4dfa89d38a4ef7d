import {
  DiscoveryCollectorResult,
  PlanningAgentResult,
  PlanningCollectorResult,
  PlanningTicket,
  TEMPLATE_SCHEMA_VERSION,
  TicketAgentResult,
  UpstreamContext,
} from '@stagecraft/contracts';
import { findPromptViolations } from '@stagecraft/prompts';
import { describeUpstream, upstreamId } from './describe-upstream';
import { MAX_LISTED_DESCRIPTION_CHARS } from './render-tickets';
import { MAX_CONFLICTS, renderUpstream } from './upstream-context';

const id = (agent: string, n: number) => `wf-1/${agent}/00${n}/2026-01-19T10:3${n}:00Z`;
const decision = { decisionType: 'ADVANCE', rationale: 'Complete enough to plan.' };
const consolidation = {
  schemaVersion: TEMPLATE_SCHEMA_VERSION,
  inputs: [{ inputContextId: id('discovery-agent', 1), inputType: 'discovery', inputSummary: 'the CLI' }],
  mergeStrategy: 'union of findings',
  consolidatedOutput: 'The CLI parses flags in src/cli.ts.',
  decision,
};

const ticket = (ticketId: string, extra: Partial<PlanningTicket> = {}): PlanningTicket =>
  PlanningTicket.parse({
    ticketId,
    title: `Add the ${ticketId} flag`,
    description: `Wire the ${ticketId} flag through the parser.`,
    acceptanceCriteria: ['the flag is parsed', 'a test covers it'],
    files: [`src/${ticketId}.ts`],
    ...extra,
  });

const discoveryCollector = DiscoveryCollectorResult.parse({
  ...consolidation,
  resultId: id('discovery-collector', 2),
  unifiedCodeMap: {
    summary: 'One CLI over a config loader.',
    files: [{ path: 'src/cli.ts', role: 'entry point', tags: ['cli'] }],
    links: [{ sourcePath: 'src/cli.ts', targetPath: 'src/config.ts', relation: 'imports' }],
  },
  recommendations: [
    { recommendationId: 'r-2', title: 'Document flags', description: 'README lists none.', priority: 'low' },
    {
      recommendationId: 'r-1',
      title: 'Add --json',
      description: 'Output is text only.\nSecond line.',
      priority: 'high',
      relatedFilePaths: ['src/cli.ts'],
    },
  ],
  querySpecificFindings: {
    flags: { originalQuery: 'where are flags parsed', confidenceScore: 0.8, summary: 'In src/cli.ts.' },
  },
  discoveryCuration: { summary: 'Change src/cli.ts only.', keyFiles: ['src/cli.ts'], constraints: ['keep output stable'] },
});

const planning = PlanningAgentResult.parse({
  schemaVersion: TEMPLATE_SCHEMA_VERSION,
  resultId: id('planning-agent', 3),
  upstreamContextId: id('planning-orchestrator', 2),
  summary: 'Two flags.',
  tickets: [ticket('T1'), ticket('T2', { dependsOn: ['T1'], priority: 'high', description: 'x'.repeat(5_000) })],
});

const planningCollector = PlanningCollectorResult.parse({
  ...consolidation,
  resultId: id('planning-collector', 4),
  tickets: [ticket('T1'), ticket('T2'), ticket('T3')],
  planningCuration: { summary: 'T2 first, then T1.', order: ['T2', 'T1'] },
});

const ticketResult = TicketAgentResult.parse({
  schemaVersion: TEMPLATE_SCHEMA_VERSION,
  resultId: id('ticket-agent', 5),
  upstreamContextId: id('ticket-orchestrator', 4),
  ticketId: 'T1',
  status: 'done',
  summary: 'Added the flag.',
  filesChanged: ['src/T1.ts'],
});

const conflicts = (n: number): UpstreamContext => ({
  kind: 'merge-conflicts',
  conflicts: Array.from({ length: n }, (_, i) => ({
    path: `src/shared-${i}.ts`,
    agentIds: ['ticket-T1', 'ticket-T2'],
    contextIds: [id('ticket-agent', 5), id('ticket-agent', 6)],
  })),
});

const every: UpstreamContext[] = [
  { kind: 'goal', workflowRunId: 'wf-1', goal: 'Add a --json flag.\nKeep text output.' },
  { kind: 'discovery-collector', result: discoveryCollector },
  { kind: 'planning', result: planning },
  { kind: 'planning-collector', result: planningCollector },
  { kind: 'ticket', ticket: ticket('T1') },
  { kind: 'ticket-result', result: ticketResult },
  conflicts(1),
];

describe('upstream context of a workflow', () => {
  it('states the goal under its own heading', () => {
    expect(renderUpstream(every[0], 'discovery-orchestrator')).toBe('### Goal\n\nWorkflow: wf-1\n\nAdd a --json flag.\nKeep text output.');
  });

  it('gives the discovery collector result by id: decision, curation, code map, recommendations by priority, findings', () => {
    const text = renderUpstream({ kind: 'discovery-collector', result: discoveryCollector }, 'planning-agent');
    expect(
      text.startsWith(`### Discovery collector result ${id('discovery-collector', 2)}\n\nDecision: ADVANCE: Complete enough to plan.`),
    ).toBe(true);
    expect(text).toContain('Discovery for planning and tickets:\n\nChange src/cli.ts only.');
    expect(text).toContain('Key files:\n- src/cli.ts');
    expect(text).toContain('Constraints:\n- keep output stable');
    expect(text).toContain('Files:\n- src/cli.ts: entry point [cli]');
    expect(text).toContain('Links between files:\n- src/cli.ts imports src/config.ts');
    expect(text).toContain(
      'Recommendations:\n- [high] r-1: Add --json: Output is text only. (files: src/cli.ts)\n- [low] r-2: Document flags: README lists none.',
    );
    expect(text).toContain('Findings per query:\n- "where are flags parsed" (confidence 0.80, 0 files): In src/cli.ts.');
  });

  it('lists a planning result with its tickets, their files and acceptance criteria, cutting long descriptions', () => {
    const text = renderUpstream({ kind: 'planning', result: planning }, 'planning-collector');
    expect(
      text.startsWith(`### Planning result ${id('planning-agent', 3)}\n\nTwo flags.\n\nTickets:\n\n#### Ticket T1: Add the T1 flag`),
    ).toBe(true);
    expect(text).toContain(
      '#### Ticket T2: Add the T2 flag\n\nPriority: high. Depends on: T1.\nFiles: src/T2.ts\nAcceptance criteria:\n- the flag is parsed\n- a test covers it',
    );
    expect(text).toContain(`[… ${5_000 - MAX_LISTED_DESCRIPTION_CHARS} more characters not shown]`);
  });

  it('lists the planning collector’s tickets in the curated order, then the rest', () => {
    const text = renderUpstream({ kind: 'planning-collector', result: planningCollector }, 'ticket-orchestrator');
    expect(text.startsWith(`### Planning collector result ${id('planning-collector', 4)}`)).toBe(true);
    expect(text).toContain('Plan:\n\nT2 first, then T1.\n\nTickets, in order:');
    const order = [...text.matchAll(/^#### Ticket (\S+):/gm)].map((m) => m[1]);
    expect(order).toEqual(['T2', 'T1', 'T3']);
  });

  it('gives a ticket agent its ticket with files and acceptance criteria', () => {
    expect(renderUpstream({ kind: 'ticket', ticket: ticket('T1') }, 'ticket-agent')).toBe(
      [
        '### Ticket T1: Add the T1 flag',
        '',
        'Priority: medium. Depends on: none.',
        'Files: src/T1.ts',
        'Acceptance criteria:',
        '- the flag is parsed',
        '- a test covers it',
        '',
        'Wire the T1 flag through the parser.',
      ].join('\n'),
    );
  });

  it('gives a ticket result by id with its status and files', () => {
    expect(renderUpstream({ kind: 'ticket-result', result: ticketResult }, 'ticket-collector')).toBe(
      `### Ticket result ${id('ticket-agent', 5)}\n\nTicket T1: done\nFiles changed: src/T1.ts\n\nAdded the flag.`,
    );
  });

  it('lists merge conflicts with their path, agents and contexts, and at most a bounded number', () => {
    const text = renderUpstream(conflicts(1), 'ticket-collector');
    expect(text.startsWith('### Merge conflicts\n\n')).toBe(true);
    expect(text).toContain(
      `- src/shared-0.ts: changed by ticket-T1, ticket-T2 (contexts ${id('ticket-agent', 5)}, ${id('ticket-agent', 6)})`,
    );
    const many = renderUpstream(conflicts(MAX_CONFLICTS + 3), 'ticket-collector');
    expect(many.split('\n').filter((l) => l.startsWith('- src/shared-'))).toHaveLength(MAX_CONFLICTS);
    expect(many).toContain('[… 3 more files not shown]');
  });

  it('renders the same context to the same bytes, and its text passes the prompt guard', () => {
    for (const context of every) {
      expect(renderUpstream(context, 'ticket-collector')).toBe(renderUpstream(structuredClone(context), 'ticket-collector'));
      expect(findPromptViolations(renderUpstream(context, 'ticket-collector'))).toEqual([]);
    }
  });

  it('names and describes each kind in one line', () => {
    expect(every.map(upstreamId)).toEqual([
      'wf-1',
      id('discovery-collector', 2),
      id('planning-agent', 3),
      id('planning-collector', 4),
      'T1',
      id('ticket-agent', 5),
      `${id('ticket-agent', 5)}, ${id('ticket-agent', 6)}`,
    ]);
    expect(every.map(describeUpstream)).toEqual([
      'goal of workflow wf-1: Add a --json flag.',
      `discovery collector result ${id('discovery-collector', 2)}: ADVANCE, Change src/cli.ts only.`,
      `planning result ${id('planning-agent', 3)}: 2 ticket(s), Two flags.`,
      `planning collector result ${id('planning-collector', 4)}: ADVANCE, 3 ticket(s)`,
      'ticket T1: Add the T1 flag',
      `ticket result ${id('ticket-agent', 5)}: ticket T1 done`,
      'merge conflicts in src/shared-0.ts',
    ]);
    for (const line of every.map(describeUpstream)) expect(line).not.toContain('\n');
  });
});
