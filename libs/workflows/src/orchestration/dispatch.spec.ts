import { delegation, report, start, types, upstreamKinds } from './workflow.testing';

describe('dispatching a workflow’s agents', () => {
  it('dispatches the assignments within the parallel limit, then the collector with every report', () => {
    const g = start({ limits: { maxParallelAgents: 2 } });
    const events = g.finish('discovery-orchestrator', delegation('discovery-agent', ['a', 'b', 'c']));
    expect(types(events)).toEqual(['AgentReturned', 'AgentDispatched', 'AgentDispatched']);
    expect(g.open('discovery-agent').map((r) => r.agentId)).toEqual(['a', 'b']);
    expect(upstreamKinds(g, 'discovery-agent')).toEqual(['delegation']);
    expect(types(g.finish('discovery-agent', report))).toEqual(['AgentReturned', 'AgentDispatched']);
    expect(g.open('discovery-agent').map((r) => r.agentId)).toEqual(['b', 'c']);
    g.finish('discovery-agent', report);
    expect(types(g.finish('discovery-agent', report))).toEqual(['AgentReturned', 'AgentDispatched']);
    expect(upstreamKinds(g, 'discovery-collector')).toEqual(['discovery', 'discovery', 'discovery']);
  });
});
