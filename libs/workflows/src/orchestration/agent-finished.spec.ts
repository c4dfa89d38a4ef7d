import { workflowView } from './view';
import { delegation, json, report, start, types } from './workflow.testing';

describe('an agent’s answer to its workflow', () => {
  it('asks an agent whose answer is not its document again, with the issues, a bounded number of times', () => {
    const g = start({ limits: { maxFormatCorrections: 1 } });
    const first = g.finish('discovery-orchestrator', 'no json here');
    expect(types(first)).toEqual(['AgentReturned', 'AgentDispatched']);
    const retry = g.open('discovery-orchestrator')[0];
    expect(retry.attempt).toBe(2);
    expect(retry.previousAttempt?.error?.message).toMatch(/no JSON document/);
    const second = g.finish('discovery-orchestrator', json({ goal: 'g' }));
    expect(types(second)).toEqual(['AgentReturned', 'WorkflowFailed']);
    expect(workflowView(g.s).failure?.code).toBe('MODEL_FORMAT');
  });

  it('ignores a second report of a run it heard of already', () => {
    const g = start();
    const runId = g.open()[0].runId;
    g.when({ type: 'AgentFinished', runId, outcome: 'completed', answer: delegation('discovery-agent', ['a']) });
    expect(g.when({ type: 'AgentFinished', runId, outcome: 'completed', answer: 'again' })).toEqual([]);
  });
});
