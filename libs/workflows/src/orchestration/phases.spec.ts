import { workflowEffects } from './effects';
import {
  consolidation,
  delegation,
  done,
  json,
  planningCollector,
  planningResult,
  throughDiscovery,
  types,
  upstreamKinds,
} from './workflow.testing';

describe('a workflow’s phases', () => {
  it('gives each phase the upstream context of seed 001', () => {
    const g = throughDiscovery();
    expect(upstreamKinds(g, 'planning-orchestrator')).toEqual(['discovery-collector']);
    g.finish('planning-orchestrator', delegation('planning-agent', ['p1', 'p2']));
    expect(upstreamKinds(g, 'planning-agent')).toEqual(['discovery-collector']);
    g.finish('planning-agent', planningResult(['T1']));
    g.finish('planning-agent', planningResult(['T2']));
    expect(upstreamKinds(g, 'planning-collector')).toEqual(['planning', 'planning', 'discovery-collector']);
    g.finish('planning-collector', planningCollector({ decisionType: 'ADVANCE' }, ['T1', 'T2']));
    expect(upstreamKinds(g, 'ticket-orchestrator')).toEqual(['discovery-collector', 'planning-collector']);
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
    const tickets = g.open('ticket-agent');
    expect(tickets.map((r) => r.upstream.map((u) => u.kind))).toEqual([
      ['discovery-collector', 'planning-collector', 'ticket'],
      ['discovery-collector', 'planning-collector', 'ticket'],
    ]);
    expect(tickets.map((r) => (r.upstream[2] as { ticket: { ticketId: string } }).ticket.ticketId)).toEqual(['T1', 'T2']);
    expect(tickets[0].worktree).toEqual({ path: '/p/.stagecraft/worktrees/wf/ticket-T1.1', method: 'copy' });
    g.finish('ticket-agent', json({ ticketId: 'T1', status: 'done', summary: 'did it', filesChanged: ['T1.md'] }));
    g.finish('ticket-agent', json({ ticketId: 'T2', status: 'done', summary: 'did it', filesChanged: ['T1.md'] }));
    // Every agent is done: the copies are merged back before the collector runs.
    expect(workflowEffects(g.state).map((e) => e.kind)).toEqual(['merge']);
    const merged = g.when({
      type: 'WorktreesMerged',
      merged: [{ agentId: 'ticket-T1', files: [] }],
      conflicts: [{ path: 'T1.md', agentIds: ['ticket-T1', 'ticket-T2'] }],
    });
    expect(types(merged)).toEqual(['WorktreesMerged', 'AgentDispatched']);
    expect(upstreamKinds(g, 'ticket-collector')).toEqual([
      'ticket-result',
      'ticket-result',
      'discovery-collector',
      'planning-collector',
      'merge-conflicts',
    ]);
    expect(types(g.finish('ticket-collector', json(consolidation({ decisionType: 'ADVANCE' }))))).toEqual([
      'AgentReturned',
      'PhaseConsolidated',
      'WorkflowCompleted',
    ]);
    expect(workflowEffects(g.state)).toEqual([]);
  });
});
