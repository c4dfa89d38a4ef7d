import { ConsolidationTemplate } from '@stagecraft/contracts';
import { renderUpstream } from '../upstream/upstream-context';
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

  it('ends a workflow stopped, not completed, when its collector says the goal cannot be reached (STOP)', () => {
    const g = start();
    g.finish('discovery-orchestrator', delegation('discovery-agent', ['a']));
    g.finish('discovery-agent', report);
    const events = g.finish('discovery-collector', discoveryResult({ decisionType: 'STOP', rationale: 'the repository is empty' }));
    expect(types(events)).toEqual(['AgentReturned', 'PhaseConsolidated', 'WorkflowHalted']);
    expect(events.at(-1)?.data).toEqual({
      phase: 'discovery',
      round: 1,
      agentId: 'discovery-collector',
      reason: 'the repository is empty',
    });
    const view = workflowView(g.s);
    expect([view.status, view.summary, view.failure]).toEqual(['stopped', null, null]);
    expect(view.halt).toEqual({ phase: 'discovery', agentId: 'discovery-collector', reason: 'the repository is empty' });
    // Nothing goes on after a stop: a late report changes nothing.
    expect(g.when({ type: 'WorkflowCancelRequested', by: 'cli', reason: '' })).toEqual([]);
  });

  it('labels only the reader’s own assignment as its own, though its siblings share its agent type', () => {
    const g = start();
    g.finish('discovery-orchestrator', delegation('discovery-agent', ['a', 'b']));
    const [a, b] = g.open('discovery-agent');
    const text = (run: typeof a) => run.upstream.map((u) => renderUpstream(u, run.agentType)).join('\n');
    expect(text(a).match(/Your assignment/g)).toHaveLength(1);
    expect(text(a)).toContain('Your assignment: work of a');
    expect(text(a)).toContain('- discovery-agent (b): work of b');
    expect(text(b)).toContain('Your assignment: work of b');
    expect(text(b)).not.toContain('Your assignment: work of a');
  });

  it('fills a consolidation’s upstreamContextChain with the contexts it builds on, whatever the model wrote', () => {
    const g = start();
    g.finish('discovery-orchestrator', delegation('discovery-agent', ['a', 'b']));
    g.finish('discovery-agent', report);
    g.finish('discovery-agent', report);
    const collector = g.open('discovery-collector')[0];
    g.when({
      type: 'AgentFinished',
      runId: collector.runId,
      outcome: 'completed',
      answer: discoveryResult({ decisionType: 'ADVANCE' }).replace(
        '"mergeStrategy"',
        '"upstreamContextChain":["x/y/001/2026-01-01T00:00:00Z"],"mergeStrategy"',
      ),
    });
    const runs = Object.values(g.s.runs);
    const idOf = (agentId: string) => runs.find((r) => r.agentId === agentId)?.contextId;
    const chain = (g.s.runs[collector.runId].result as ConsolidationTemplate).upstreamContextChain;
    expect(chain).toEqual([g.s.start.rootContextId, idOf('discovery-orchestrator'), idOf('a'), idOf('b')]);
    g.finish('planning-orchestrator', delegation('planning-agent', ['p1']));
    g.finish('planning-agent', planningResult(['T1']));
    g.finish('planning-collector', planningCollector({ decisionType: 'ADVANCE' }, ['T1']));
    const planning = Object.values(g.s.runs).find((r) => r.agentType === 'planning-collector');
    expect((planning?.result as ConsolidationTemplate).upstreamContextChain.slice(0, 2)).toEqual([
      g.s.start.rootContextId,
      collector.contextId,
    ]);
  });
});
