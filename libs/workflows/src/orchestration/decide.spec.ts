import { WorkflowStartRequest } from '@stagecraft/contracts';
import { spec } from '@stagecraft/decider';
import { workflowDecider } from './decide';
import { WorkflowPendingEvent } from './evolve';
import { workflowEffects } from './effects';
import { workflowView } from './view';
import { StartedWorkflow } from './state';
import { AT, Given, done, planningCollector, start, throughPlanning, toTickets, types, upstreamKinds } from './workflow.testing';

describe('the workflow decider', () => {
  it('starts with the discovery orchestrator, which gets the goal', () => {
    const g = new Given();
    const events = g.when({
      type: 'WorkflowRequested',
      workflowId: 'wf',
      request: WorkflowStartRequest.parse({ goal: 'Document the project', projectRoot: '/p' }),
      projectRoot: '/p',
      isolation: 'copy',
    });
    expect(types(events)).toEqual(['WorkflowStarted', 'PhaseStarted', 'AgentDispatched']);
    expect(upstreamKinds(g, 'discovery-orchestrator')).toEqual(['goal']);
    expect(g.open()[0].contextId).toBe('wf/discovery-orchestrator/001/2026-11-22T10:00:00Z');
    expect(() =>
      g.when({ type: 'WorkflowRequested', workflowId: 'wf', request: g.s.start as never, projectRoot: '/p', isolation: 'copy' }),
    ).toThrow(/already exists/);
  });

  it('folds its log to the state its decisions reached, an approval being asked at its recorded time', () => {
    const g = throughPlanning({ gates: { afterPlanning: true, beforeMerge: false } });
    g.finish('planning-collector', planningCollector({ decisionType: 'ADVANCE' }, ['T1']));
    expect(g.log.reduce(workflowDecider.evolve, workflowDecider.initialState())).toEqual(g.state);
    expect(workflowView(g.s).pendingApproval?.requestedAt).toBe(AT);
    // An event with no recorded time (one read from a log written without it) gives no time.
    const untimed = g.log.map(({ type, data }) => ({ type, data }) as WorkflowPendingEvent);
    const folded = untimed.reduce(workflowDecider.evolve, workflowDecider.initialState()) as StartedWorkflow;
    expect(workflowView(folded).pendingApproval).not.toHaveProperty('requestedAt');
  });

  it('refuses, on the kit’s given / when / then, an input that does not fit the workflow, and decides nothing for one it ignores', () => {
    const g = start();
    const decider = spec(workflowDecider, undefined);
    decider
      .given(g.log)
      .when({ type: 'ApprovalAnswered', decision: 'approve', at: AT })
      .thenThrows((error) => expect(error).toMatchObject({ code: 'CONFLICT', message: 'workflow wf is not waiting for an approval' }));
    decider
      .given([])
      .when({ type: 'AgentFinished', runId: 'wf.1', outcome: 'completed', answer: '', at: AT })
      .thenThrows((error) => expect(error).toMatchObject({ code: 'INTERNAL' }));
    decider.given([]).when({ type: 'WorkflowCancelRequested', by: 'cli', reason: '', at: AT }).then([]);
    decider
      .given(g.log)
      .when({ type: 'WorkflowStopped', fault: { code: 'UNAVAILABLE', message: 'gone' }, at: AT })
      .then([{ type: 'WorkflowFailed', data: { code: 'UNAVAILABLE', reason: 'gone' } }]);
  });

  it('cancels a live workflow once: nothing more is dispatched, and an ended one is left as it ended', () => {
    const g = toTickets();
    const cancelled = g.when({ type: 'WorkflowCancelRequested', by: 'cli', reason: 'changed my mind' });
    expect(cancelled).toEqual([{ type: 'WorkflowCancelled', data: { by: 'cli', reason: 'changed my mind' } }]);
    expect(g.s.status).toBe('cancelled');
    expect(workflowView(g.s).summary).toBe('cancelled by cli: changed my mind');
    expect(workflowEffects(g.state)).toEqual([]);
    // An agent that reports afterwards changes nothing, nor does a second cancellation.
    expect(g.finish('ticket-agent', done('T1'))).toEqual([]);
    expect(g.when({ type: 'WorkflowCancelRequested', by: 'cli', reason: '' })).toEqual([]);
    expect(workflowView(g.s).worktrees.map((w) => w.state)).toEqual(['not-merged', 'not-merged']);
  });
});
