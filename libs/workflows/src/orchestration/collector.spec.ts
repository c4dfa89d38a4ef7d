import { workflowView } from './view';
import { delegation, discoveryResult, planningCollector, planningResult, report, start, throughPlanning, types } from './workflow.testing';

describe('a collector’s decision', () => {
  it('runs the named agents again with their previous attempt on RERUN, then the collector again', () => {
    const g = start();
    g.finish('discovery-orchestrator', delegation('discovery-agent', ['a', 'b']));
    g.finish('discovery-agent', report);
    g.finish('discovery-agent', report);
    const rerun = g.finish('discovery-collector', discoveryResult({ decisionType: 'RERUN', rerunAgentIds: ['b'] }));
    expect(types(rerun)).toEqual(['AgentReturned', 'PhaseConsolidated', 'AgentDispatched']);
    const again = g.open('discovery-agent')[0];
    expect([again.agentId, again.attempt]).toEqual(['b', 2]);
    expect(again.previousAttempt?.serializedOutput).toContain('architectureOverview');
    expect(again.previousAttempt?.error?.message).toContain('because');
    expect(types(g.finish('discovery-agent', report))).toEqual(['AgentReturned', 'AgentDispatched']);
    expect(g.open('discovery-collector')[0].attempt).toBe(2);
  });

  it('fails a workflow whose collector keeps asking for reruns past the limit', () => {
    const g = start({ limits: { maxReruns: 1 } });
    g.finish('discovery-orchestrator', delegation('discovery-agent', ['a']));
    g.finish('discovery-agent', report);
    g.finish('discovery-collector', discoveryResult({ decisionType: 'RERUN', rerunAgentIds: ['a'] }));
    g.finish('discovery-agent', report);
    const events = g.finish('discovery-collector', discoveryResult({ decisionType: 'RERUN', rerunAgentIds: ['a'] }));
    expect(types(events)).toEqual(['AgentReturned', 'PhaseConsolidated', 'WorkflowFailed']);
    expect(workflowView(g.s).failure?.code).toBe('LIMIT_EXCEEDED');
  });

  it('treats a RERUN of an agent the phase does not have as an answer to correct', () => {
    const g = start();
    g.finish('discovery-orchestrator', delegation('discovery-agent', ['a']));
    g.finish('discovery-agent', report);
    g.finish('discovery-collector', discoveryResult({ decisionType: 'RERUN', rerunAgentIds: ['zzz'] }));
    const retry = g.open('discovery-collector')[0];
    expect(retry.attempt).toBe(2);
    expect(retry.previousAttempt?.error?.message).toMatch(/not agents of this phase: zzz/);
  });

  it('goes back one phase on ROUTE_BACK, with the orchestrator told why, and stops going back past the limit', () => {
    const g = throughPlanning({ limits: { maxRouteBacks: 1 } });
    const events = g.finish('planning-collector', planningCollector({ decisionType: 'ROUTE_BACK' }, []));
    expect(types(events)).toEqual(['AgentReturned', 'PhaseConsolidated', 'PhaseRerouted', 'PhaseStarted', 'AgentDispatched']);
    const orchestrator = g.open('discovery-orchestrator')[0];
    expect(orchestrator.attempt).toBe(2);
    expect(orchestrator.previousAttempt?.error?.message).toMatch(/routed back: because/);
    expect(g.s.entries.map((e) => `${e.phase}#${e.round}:${e.status}`)).toEqual([
      'discovery#1:consolidated',
      'planning#1:rerouted',
      'discovery#2:running',
    ]);
    g.finish('discovery-orchestrator', delegation('discovery-agent', ['a']));
    g.finish('discovery-agent', report);
    g.finish('discovery-collector', discoveryResult({ decisionType: 'ADVANCE' }));
    g.finish('planning-orchestrator', delegation('planning-agent', ['p1']));
    g.finish('planning-agent', planningResult(['T1']));
    const again = g.finish('planning-collector', planningCollector({ decisionType: 'ROUTE_BACK' }, []));
    expect(types(again)).toEqual(['AgentReturned', 'PhaseConsolidated', 'WorkflowFailed']);
    expect(workflowView(g.s).failure?.code).toBe('LIMIT_EXCEEDED');
  });
});
