import {
  ConsolidationTemplate,
  DelegationTemplate,
  DiscoveryReport,
  PromptAssembleRequest,
  TEMPLATE_SCHEMA_VERSION,
  UpstreamContext,
} from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { findPromptViolations } from '@stagecraft/prompts';
import { renderUpstream, upstreamContextContributor } from './upstream-context';
import { describeUpstream } from './describe-upstream';

const at = (n: number) => `2026-01-19T10:3${n}:00Z`;
const policy = decideStagePolicy({
  userMode: 'agent',
  reasoningEnabled: true,
  stage: 'act',
  delegation: { depth: 1, chain: ['test-analyst'] },
});
const context = (upstream: UpstreamContext[] | undefined, agentType = 'test-analyst') => ({
  agentType,
  policy,
  variables: {},
  instructions: [],
  upstream,
});

const delegation: DelegationTemplate = DelegationTemplate.parse({
  schemaVersion: TEMPLATE_SCHEMA_VERSION,
  resultId: `wf-1/main/002/${at(2)}`,
  upstreamContextId: `wf-1/main/001/${at(1)}`,
  goal: 'Make the config parser accept YAML.',
  delegationRationale: 'Parsing and tests are independent.',
  assignments: [
    {
      agentId: 'a-1',
      agentType: 'test-analyst',
      assignedGoal: 'Find the failing parser tests.',
      subdomainFocus: 'src/config',
      contextToPass: { zeta: 'last', command: 'npm test' },
    },
    { agentId: 'a-2', agentType: 'implementer', assignedGoal: 'Add the YAML branch.' },
  ],
  contextSelections: [
    {
      selectionId: 's-1',
      sourceContextId: `wf-1/main/001/${at(1)}`,
      selectedContent: 'parse() is called from load.ts\nand cli.ts',
      selectionRationale: 'callers',
    },
  ],
});

const consolidation: ConsolidationTemplate = ConsolidationTemplate.parse({
  schemaVersion: '1.2.0',
  resultId: `wf-1/collector/001/${at(5)}`,
  inputs: [{ inputContextId: `wf-1/test-analyst/001/${at(3)}`, inputType: 'analysis', inputSummary: 'three failing tests' }],
  mergeStrategy: 'union',
  aggregatedMetrics: { coverage: 0.8 },
  consolidatedOutput: 'Three tests fail because of key order.',
  decision: { decisionType: 'ROUTE_BACK', rationale: 'The fix is incomplete.', requestedPhase: 'implementation' },
  conflictResolutions: [
    {
      conflictDescription: 'Two causes proposed',
      resolutionApproach: 'kept the one with a reproduction',
      conflictingInputs: [`wf-1/test-analyst/001/${at(3)}`],
    },
  ],
  curations: [
    { curationId: 'c-1', title: 'Failing tests', content: 'parse.spec.ts:10-40', sourceContextIds: [`wf-1/test-analyst/001/${at(3)}`] },
  ],
});

const file = (filePath: string, relevanceScore: number, startLine = 1) => ({
  filePath,
  startLine,
  endLine: startLine + 9,
  relevanceScore,
  snippet: '',
  tags: [],
});
const discovery: DiscoveryReport = DiscoveryReport.parse({
  schemaVersion: TEMPLATE_SCHEMA_VERSION,
  resultId: `wf-1/discovery/001/${at(4)}`,
  upstreamContextId: `wf-1/main/002/${at(2)}`,
  architectureOverview: 'A CLI over a config loader.\nSecond line.',
  keyPatterns: ['parsers are pure functions'],
  fileReferences: [
    ...Array.from({ length: 13 }, (_, i) => file(`src/f${String(i).padStart(2, '0')}.ts`, 0.5)),
    file('src/config.ts', 0.9, 12),
    file('src/a.ts', 0.5),
  ],
  crossLinks: [{ sourcePath: 'src/cli.ts', targetPath: 'src/config.ts', relation: 'imports' }],
  diagrams: [{ title: 'Flow', notation: 'mermaid', source: 'graph TD; cli-->config' }],
});

describe('upstream context contributor', () => {
  it('adds nothing without upstream context', () => {
    expect(upstreamContextContributor.contribute(context(undefined))).toBeNull();
    expect(upstreamContextContributor.contribute(context([]))).toBeNull();
  });

  it('shows the reader its own assignment in full and the others as boundaries', () => {
    expect(renderUpstream({ kind: 'delegation', template: delegation }, 'test-analyst')).toBe(
      [
        `### Delegation wf-1/main/002/${at(2)}`,
        '',
        'Goal: Make the config parser accept YAML.',
        'Why the work was split this way: Parsing and tests are independent.',
        '',
        'Your assignment: Find the failing parser tests. (focus: src/config)',
        '- command: npm test',
        '- zeta: last',
        '',
        'Assigned to others (not yours):',
        '- implementer (a-2): Add the YAML branch.',
        '',
        'Context selected for this work:',
        `- from wf-1/main/001/${at(1)} (callers):\n  parse() is called from load.ts\n  and cli.ts`,
      ].join('\n'),
    );
  });

  it('lists every assignment when none is the reader’s', () => {
    const text = renderUpstream({ kind: 'delegation', template: delegation }, 'main');
    expect(text).not.toContain('Your assignment');
    expect(text).toContain('Assignments:\n- test-analyst (a-1): Find the failing parser tests. (focus: src/config)\n- implementer (a-2)');
  });

  it('gives the decision, output, resolved conflicts and curations of a consolidation, but not its metrics', () => {
    const text = renderUpstream({ kind: 'consolidation', template: consolidation }, 'main');
    expect(text).toContain('Decision: ROUTE_BACK (implementation): The fix is incomplete.');
    expect(text).toContain(`Merged from: analysis wf-1/test-analyst/001/${at(3)}`);
    expect(text).toContain('Conflicts already resolved:\n- Two causes proposed: kept the one with a reproduction');
    expect(text).toContain('#### Failing tests\n\nparse.spec.ts:10-40');
    expect(text).not.toContain('coverage');
  });

  it('lists the most relevant files of a discovery report first, and at most twelve', () => {
    const text = renderUpstream({ kind: 'discovery', report: discovery }, 'main');
    const files = text.split('\n').filter((l) => l.startsWith('- src/f') || l.startsWith('- src/a') || l.startsWith('- src/config'));
    expect(files[0]).toBe('- src/config.ts:12-21 (relevance 0.90)');
    expect(files[1]).toBe('- src/a.ts:1-10 (relevance 0.50)');
    expect(files).toHaveLength(12);
    expect(text).toContain('Most relevant files (12 of 15):');
    expect(text).toContain('- src/cli.ts imports src/config.ts');
    expect(text).toContain('Flow:\n```mermaid\ngraph TD; cli-->config\n```');
  });

  it('composes every kind in the order given, under one heading', () => {
    const upstream: UpstreamContext[] = [
      { kind: 'result', resultId: `wf-1/implementer/001/${at(6)}`, agentType: 'implementer', output: 'Patched src/config.ts.' },
      { kind: 'delegation', template: delegation },
    ];
    const text = upstreamContextContributor.contribute(context(upstream)) ?? '';
    expect(text.startsWith('## Upstream context\n\n')).toBe(true);
    expect(text.indexOf('### Result from implementer')).toBeLessThan(text.indexOf('### Delegation'));
    expect(text).toContain(`### Result from implementer wf-1/implementer/001/${at(6)}\n\nPatched src/config.ts.`);
  });

  it('describes each kind in one line', () => {
    expect(describeUpstream({ kind: 'discovery', report: discovery })).toBe(
      `discovery wf-1/discovery/001/${at(4)}: A CLI over a config loader.`,
    );
    expect(describeUpstream({ kind: 'consolidation', template: consolidation })).toBe(
      `consolidation wf-1/collector/001/${at(5)}: ROUTE_BACK, The fix is incomplete.`,
    );
  });

  it('reaches the contributor through a parsed assemble request, and its own text passes the prompt guard', () => {
    const request = PromptAssembleRequest.parse({
      policy,
      variables: {},
      upstream: [
        { kind: 'delegation', template: delegation },
        { kind: 'discovery', report: discovery },
      ],
    });
    const text = upstreamContextContributor.contribute({ ...request, agentType: 'test-analyst' }) ?? '';
    expect(text).toContain('Your assignment');
    expect(findPromptViolations(text)).toEqual([]);
  });
});
