import { jsonSchemaFiles } from './json-schemas';
import { ConsolidationTemplate, DelegationTemplate, DiscoveryReport, FileReference, TEMPLATE_SCHEMA_VERSION } from './templates';

const id = (agent: string, n: number) => `wf-1/${agent}/00${n}/2026-01-19T10:3${n}:00Z`;

const delegation = {
  schemaVersion: TEMPLATE_SCHEMA_VERSION,
  resultId: id('main', 2),
  upstreamContextId: id('main', 1),
  goal: 'Support YAML configs.',
  delegationRationale: 'Tests and parser are independent.',
  assignments: [{ agentId: 'a-1', agentType: 'test-analyst', assignedGoal: 'Find failing tests.' }],
};

describe('template schemas (seed 001)', () => {
  it('fill the defaults a producer may leave out', () => {
    expect(DelegationTemplate.parse(delegation)).toEqual({
      ...delegation,
      assignments: [{ ...delegation.assignments[0], contextToPass: {} }],
      contextSelections: [],
      metadata: {},
    });
  });

  it('accept any 1.x.y version and refuse others', () => {
    for (const schemaVersion of ['1.0.0', '1.4.12']) expect(DelegationTemplate.safeParse({ ...delegation, schemaVersion }).success).toBe(true);
    for (const schemaVersion of ['2.0.0', '1.0', 'v1.0.0', '']) expect(DelegationTemplate.safeParse({ ...delegation, schemaVersion }).success).toBe(false);
  });

  it('require at least one assignment and real context ids', () => {
    expect(DelegationTemplate.safeParse({ ...delegation, assignments: [] }).success).toBe(false);
    expect(DelegationTemplate.safeParse({ ...delegation, resultId: 'wf-1/main/2' }).success).toBe(false);
  });

  it('check a consolidation decision and its inputs', () => {
    const consolidation = {
      schemaVersion: '1.0.0',
      resultId: id('collector', 5),
      inputs: [{ inputContextId: id('worker', 3), inputType: 'analysis', inputSummary: 'three failing tests' }],
      mergeStrategy: 'union of findings',
      consolidatedOutput: 'Three tests fail.',
      decision: { decisionType: 'ADVANCE', rationale: 'Complete.' },
    };
    expect(ConsolidationTemplate.parse(consolidation)).toMatchObject({ conflictResolutions: [], aggregatedMetrics: {}, upstreamContextChain: [], curations: [] });
    expect(ConsolidationTemplate.safeParse({ ...consolidation, decision: { decisionType: 'MAYBE', rationale: 'x' } }).success).toBe(false);
    expect(ConsolidationTemplate.safeParse({ ...consolidation, decision: { decisionType: 'ADVANCE_PHASE', rationale: 'x' } }).success).toBe(false);
    expect(ConsolidationTemplate.parse({ ...consolidation, decision: { decisionType: 'RERUN', rationale: 'thin', rerunAgentIds: ['a-1'] } }).decision).toEqual({
      decisionType: 'RERUN',
      rationale: 'thin',
      rerunAgentIds: ['a-1'],
    });
    expect(ConsolidationTemplate.parse({ ...consolidation, decision: { decisionType: 'ROUTE_BACK', rationale: 'r' } }).decision.rerunAgentIds).toEqual([]);
    expect(ConsolidationTemplate.safeParse({ ...consolidation, inputs: [] }).success).toBe(false);
  });

  it('check line ranges and relevance in a discovery report', () => {
    const ref = { filePath: 'src/a.ts', startLine: 3, endLine: 9, relevanceScore: 0.7, snippet: 'x' };
    expect(FileReference.parse(ref).tags).toEqual([]);
    expect(FileReference.safeParse({ ...ref, endLine: 2 }).error?.issues).toEqual([expect.objectContaining({ path: ['endLine'], message: 'endLine comes before startLine' })]);
    expect(FileReference.safeParse({ ...ref, relevanceScore: 1.2 }).success).toBe(false);
    const report = { schemaVersion: '1.0.0', resultId: id('discovery', 4), upstreamContextId: id('main', 2), architectureOverview: 'A CLI.', fileReferences: [ref] };
    expect(DiscoveryReport.parse(report).generatedQueries).toEqual([]);
    expect(DiscoveryReport.safeParse({ ...report, generatedQueries: [{ queryText: 'q', expectedResultPaths: ['src/a.ts'], queryType: 'guess' }] }).success).toBe(false);
    expect(DiscoveryReport.safeParse({ ...report, relevanceScores: { 'src/a.ts': -0.1 } }).success).toBe(false);
  });

  it('are published as JSON Schema under templates/, with the defaulted fields optional', () => {
    const files = jsonSchemaFiles();
    const names = ['DelegationTemplate', 'ConsolidationTemplate', 'DiscoveryReport', 'DiscoveryCollectorResult', 'PlanningTicket'];
    for (const name of [...names, 'PlanningAgentResult', 'PlanningCollectorResult', 'TicketAgentResult', 'TicketCollectorResult']) {
      expect(files[`templates/${name}.schema.json`]).toMatchObject({ $id: `stagecraft/templates/${name}.schema.json`, type: 'object' });
    }
    expect(files['templates/DelegationTemplate.schema.json']).toMatchObject({
      required: ['schemaVersion', 'resultId', 'upstreamContextId', 'goal', 'delegationRationale', 'assignments'],
    });
  });
});
