import { workflowEffects } from './effects';
import { workflowView } from './view';
import { planningCollector, throughPlanning, types } from './workflow.testing';

describe('a workflow waiting for a person', () => {
  it('waits for a person after planning when asked to, and goes on only with an approval', () => {
    const g = throughPlanning({ gates: { afterPlanning: true, beforeMerge: false } });
    const events = g.finish('planning-collector', planningCollector({ decisionType: 'ADVANCE' }, ['T1']));
    expect(types(events)).toEqual(['AgentReturned', 'PhaseConsolidated', 'ApprovalRequested']);
    expect(g.s.status).toBe('waiting');
    expect(workflowView(g.s).pendingApproval?.summary).toContain('T1');
    expect(workflowEffects(g.state)).toEqual([]);
    expect(() => g.when({ type: 'ApprovalAnswered', approvalId: 'other', decision: 'approve' })).toThrow(/waits for/);
    expect(types(g.when({ type: 'ApprovalAnswered', decision: 'approve' }))).toEqual(['ApprovalGiven', 'PhaseStarted', 'AgentDispatched']);
    expect(() => g.when({ type: 'ApprovalAnswered', decision: 'approve' })).toThrow(/not waiting/);
  });

  it('plans again when the tickets are not approved', () => {
    const g = throughPlanning({ gates: { afterPlanning: true, beforeMerge: false } });
    g.finish('planning-collector', planningCollector({ decisionType: 'ADVANCE' }, ['T1']));
    const denied = g.when({ type: 'ApprovalAnswered', decision: 'deny', reason: 'too big' });
    expect(types(denied)).toEqual(['ApprovalDenied', 'PhaseRerouted', 'PhaseStarted', 'AgentDispatched']);
    expect(g.open('planning-orchestrator')[0].previousAttempt?.error?.message).toContain('too big');
  });
});
