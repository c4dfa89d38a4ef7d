/** Given / when / then for the workflow decider across many inputs: a workflow driven input by input, and the answers its agents give. */
import { WorkflowStartRequest } from '@stagecraft/contracts';
import { workflowDecider } from './decide';
import { WorkflowPendingEvent } from './evolve';
import { WorkflowInput } from './inputs';
import { StartedWorkflow, WorkflowState } from './state';

export const AT = '2026-11-22T10:00:00Z';
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export const json = (doc: unknown) => `Done.\n\n\`\`\`json\n${JSON.stringify(doc)}\n\`\`\``;

export const delegation = (agentType: string, ids: string[], extra: Record<string, string> = {}) =>
  json({
    goal: 'g',
    delegationRationale: 'split by area',
    assignments: ids.map((agentId) => ({ agentId, agentType, assignedGoal: `work of ${agentId}`, contextToPass: extra })),
  });
export const report = json({ architectureOverview: 'A small converter library.' });
export const consolidation = (decision: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  inputs: [{ inputContextId: 'wf/discovery-agent/001/2026-11-22T10:00:00Z', inputType: 'report', inputSummary: 's' }],
  mergeStrategy: 'union',
  consolidatedOutput: 'merged',
  decision: { rationale: 'because', ...decision },
  ...extra,
});
export const discoveryResult = (decision: Record<string, unknown>) =>
  json(consolidation(decision, { unifiedCodeMap: { summary: 'map' }, discoveryCuration: { summary: 'curated' } }));
export const ticket = (ticketId: string, file: string) => ({
  ticketId,
  title: `do ${ticketId}`,
  description: 'd',
  acceptanceCriteria: ['works'],
  files: [file],
});
export const planningResult = (ids: string[]) => json({ summary: 'plan', tickets: ids.map((id) => ticket(id, `${id}.md`)) });
export const planningCollector = (decision: Record<string, unknown>, ids: string[]) =>
  json(consolidation(decision, { tickets: ids.map((id) => ticket(id, `${id}.md`)), planningCuration: { summary: 'order' } }));

/** Given the events so far, when an input arrives: the events decided, and the state after them. */
export class Given {
  state: WorkflowState = workflowDecider.initialState();
  /** Every event so far, as the log records them (with their time). */
  readonly log: WorkflowPendingEvent[] = [];
  when(input: DistributiveOmit<WorkflowInput, 'at'>): readonly WorkflowPendingEvent[] {
    const events = workflowDecider.decide({ at: AT, ...input } as WorkflowInput, this.state);
    const recorded = events.map((e) => ({ ...e, metadata: { occurredAt: AT } }));
    this.log.push(...recorded);
    this.state = recorded.reduce(workflowDecider.evolve, this.state);
    return events;
  }
  get s(): StartedWorkflow {
    if (this.state.status === 'new') throw new Error('not started');
    return this.state;
  }
  /** The dispatched runs of an agent type that have not returned, in dispatch order. */
  open(agentType?: string) {
    return Object.values(this.s.runs).filter((r) => r.status === 'dispatched' && (agentType === undefined || r.agentType === agentType));
  }
  finish(agentType: string, answer: string, index = 0): readonly WorkflowPendingEvent[] {
    const run = this.open(agentType)[index];
    if (run === undefined) throw new Error(`no open ${agentType}`);
    return this.when({ type: 'AgentFinished', runId: run.runId, outcome: 'completed', answer });
  }
}

export const types = (events: readonly WorkflowPendingEvent[]) => events.map((e) => e.type);
export const start = (request: Partial<WorkflowStartRequest> = {}) => {
  const g = new Given();
  g.when({
    type: 'WorkflowRequested',
    workflowId: 'wf',
    request: WorkflowStartRequest.parse({ goal: 'Document the project', projectRoot: '/p', ...request }),
    projectRoot: '/p',
    isolation: 'copy',
  });
  return g;
};
export const upstreamKinds = (g: Given, agentType: string) => g.open(agentType)[0].upstream.map((u) => u.kind);

/** Through discovery, its collector advancing. */
export const throughDiscovery = (request: Partial<WorkflowStartRequest> = {}) => {
  const g = start(request);
  g.finish('discovery-orchestrator', delegation('discovery-agent', ['a', 'b']));
  g.finish('discovery-agent', report);
  g.finish('discovery-agent', report);
  g.finish('discovery-collector', discoveryResult({ decisionType: 'ADVANCE' }));
  return g;
};
export const throughPlanning = (request: Partial<WorkflowStartRequest> = {}) => {
  const g = throughDiscovery(request);
  g.finish('planning-orchestrator', delegation('planning-agent', ['p1', 'p2']));
  g.finish('planning-agent', planningResult(['T1']));
  g.finish('planning-agent', planningResult(['T2']));
  return g;
};

/** Into the tickets phase of a workflow with a snapshot (docs/decisions/0036), both ticket agents dispatched. */
export const SNAPSHOT = 'a'.repeat(64);
export const toTickets = (request: Partial<WorkflowStartRequest> = {}) => {
  const g = new Given();
  g.when({
    type: 'WorkflowRequested',
    workflowId: 'wf',
    request: WorkflowStartRequest.parse({ goal: 'Document the project', projectRoot: '/p', ...request }),
    projectRoot: '/p',
    isolation: 'git-worktree',
    snapshot: { id: SNAPSHOT, files: 3 },
  });
  g.finish('discovery-orchestrator', delegation('discovery-agent', ['a']));
  g.finish('discovery-agent', report);
  g.finish('discovery-collector', discoveryResult({ decisionType: 'ADVANCE' }));
  g.finish('planning-orchestrator', delegation('planning-agent', ['p1']));
  g.finish('planning-agent', planningResult(['T1', 'T2']));
  g.finish('planning-collector', planningCollector({ decisionType: 'ADVANCE' }, ['T1', 'T2']));
  g.finish(
    'ticket-orchestrator',
    json({
      goal: 'g',
      delegationRationale: 'one per ticket',
      assignments: ['T1', 'T2'].map((t) => ({
        agentId: `ticket-${t}`,
        agentType: 'ticket-agent',
        assignedGoal: t,
        contextToPass: { ticketId: t },
      })),
    }),
  );
  return g;
};
export const done = (t: string) => json({ ticketId: t, status: 'done', summary: 'did it', filesChanged: [`${t}.md`] });
