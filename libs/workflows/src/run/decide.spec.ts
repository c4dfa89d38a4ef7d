import { WorkflowStartRequest } from '@stagecraft/contracts';
import { decideWorkflow } from './decide';
import { evolveWorkflow, WorkflowPendingEvent } from './evolve';
import { workflowEffects } from './effects';
import { workflowView } from './view';
import { WorkflowInput } from './inputs';
import { StartedWorkflow, WorkflowState, initialWorkflowState } from './state';

const AT = '2026-11-22T10:00:00Z';
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
const json = (doc: unknown) => `Done.\n\n\`\`\`json\n${JSON.stringify(doc)}\n\`\`\``;

const delegation = (agentType: string, ids: string[], extra: Record<string, string> = {}) =>
  json({
    goal: 'g',
    delegationRationale: 'split by area',
    assignments: ids.map((agentId) => ({ agentId, agentType, assignedGoal: `work of ${agentId}`, contextToPass: extra })),
  });
const report = json({ architectureOverview: 'A small converter library.' });
const consolidation = (decision: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  inputs: [{ inputContextId: 'wf/discovery-agent/001/2026-11-22T10:00:00Z', inputType: 'report', inputSummary: 's' }],
  mergeStrategy: 'union',
  consolidatedOutput: 'merged',
  decision: { rationale: 'because', ...decision },
  ...extra,
});
const discoveryResult = (decision: Record<string, unknown>) =>
  json(consolidation(decision, { unifiedCodeMap: { summary: 'map' }, discoveryCuration: { summary: 'curated' } }));
const ticket = (ticketId: string, file: string) => ({
  ticketId,
  title: `do ${ticketId}`,
  description: 'd',
  acceptanceCriteria: ['works'],
  files: [file],
});
const planningResult = (ids: string[]) => json({ summary: 'plan', tickets: ids.map((id) => ticket(id, `${id}.md`)) });
const planningCollector = (decision: Record<string, unknown>, ids: string[]) =>
  json(consolidation(decision, { tickets: ids.map((id) => ticket(id, `${id}.md`)), planningCuration: { summary: 'order' } }));

/** Given the events so far, when an input arrives: the events decided, and the state after them. */
class Given {
  state: WorkflowState = initialWorkflowState();
  when(input: DistributiveOmit<WorkflowInput, 'at'>): WorkflowPendingEvent[] {
    const events = decideWorkflow(this.state, { at: AT, ...input } as WorkflowInput);
    this.state = events.reduce((s, e) => evolveWorkflow(s, e, AT), this.state);
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
  finish(agentType: string, answer: string, index = 0): WorkflowPendingEvent[] {
    const run = this.open(agentType)[index];
    if (run === undefined) throw new Error(`no open ${agentType}`);
    return this.when({ type: 'AgentFinished', runId: run.runId, outcome: 'completed', answer });
  }
}

const types = (events: WorkflowPendingEvent[]) => events.map((e) => e.type);
const start = (request: Partial<WorkflowStartRequest> = {}) => {
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
const upstreamKinds = (g: Given, agentType: string) => g.open(agentType)[0].upstream.map((u) => u.kind);

describe('workflow decider', () => {
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

  it('asks an agent whose answer is not its document again, with the issues, a bounded number of times', () => {
    const g = start({ limits: { maxFormatCorrections: 1 } });
    const first = g.finish('discovery-orchestrator', 'no json here');
    expect(types(first)).toEqual(['AgentReturned', 'AgentDispatched']);
    const retry = g.open('discovery-orchestrator')[0];
    expect(retry.attempt).toBe(2);
    expect(retry.previousAttempt?.error?.message).toMatch(/no JSON document/);
    const second = g.finish('discovery-orchestrator', json({ goal: 'g' }));
    expect(types(second)).toEqual(['AgentReturned', 'WorkflowFailed']);
    expect(g.s.failure?.code).toBe('MODEL_FORMAT');
  });

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
    expect(g.s.failure?.code).toBe('LIMIT_EXCEEDED');
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

  const throughDiscovery = (request: Partial<WorkflowStartRequest> = {}) => {
    const g = start(request);
    g.finish('discovery-orchestrator', delegation('discovery-agent', ['a', 'b']));
    g.finish('discovery-agent', report);
    g.finish('discovery-agent', report);
    g.finish('discovery-collector', discoveryResult({ decisionType: 'ADVANCE' }));
    return g;
  };
  const throughPlanning = (request: Partial<WorkflowStartRequest> = {}) => {
    const g = throughDiscovery(request);
    g.finish('planning-orchestrator', delegation('planning-agent', ['p1', 'p2']));
    g.finish('planning-agent', planningResult(['T1']));
    g.finish('planning-agent', planningResult(['T2']));
    return g;
  };

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
    expect(g.s.failure?.code).toBe('LIMIT_EXCEEDED');
  });

  it('waits for a person after planning when asked to, and goes on only with an approval', () => {
    const g = throughPlanning({ gates: { afterPlanning: true, beforeMerge: false } });
    const events = g.finish('planning-collector', planningCollector({ decisionType: 'ADVANCE' }, ['T1']));
    expect(types(events)).toEqual(['AgentReturned', 'PhaseConsolidated', 'ApprovalRequested']);
    expect(g.s.status).toBe('waiting');
    expect(g.s.pendingApproval?.summary).toContain('T1');
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

  it('ignores a second report of a run it heard of already', () => {
    const g = start();
    const runId = g.open()[0].runId;
    g.when({ type: 'AgentFinished', runId, outcome: 'completed', answer: delegation('discovery-agent', ['a']) });
    expect(g.when({ type: 'AgentFinished', runId, outcome: 'completed', answer: 'again' })).toEqual([]);
  });

  it('walks the steps of a workflow definition, each step building on the answers before it', () => {
    const g = new Given();
    const steps = [
      { id: 'one', title: 'One', prompt: 'Do one.', agentRole: 'Act as a careful analyst.', guidance: ['be brief'] },
      { id: 'two', title: 'Two', prompt: 'Do two.' },
    ];
    g.when({
      type: 'WorkflowRequested',
      workflowId: 'wf',
      request: WorkflowStartRequest.parse({ goal: 'Review', projectRoot: '/p', workflow: 'review' }),
      projectRoot: '/p',
      isolation: 'copy',
      steps: { definitionId: 'review', name: 'review', steps },
    });
    const first = g.open()[0];
    expect(first.assignedGoal).toBe('## Agent Role\nAct as a careful analyst.\n\n## Step Guidance\n- be brief\n\nDo one.\n\nGoal: Review');
    g.finish('workflow-step', 'first answer');
    expect(g.open()[0].upstream).toEqual([
      { kind: 'result', resultId: first.contextId, agentType: 'workflow-step', output: 'first answer' },
    ]);
    expect(types(g.finish('workflow-step', 'second answer'))).toEqual(['AgentReturned', 'WorkflowCompleted']);
    expect(g.s.summary).toBe('second answer');
  });

  describe('nothing the user has is lost (docs/decisions/0036)', () => {
    const SNAPSHOT = 'a'.repeat(64);
    const toTickets = (request: Partial<WorkflowStartRequest> = {}) => {
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
    const done = (t: string) => json({ ticketId: t, status: 'done', summary: 'did it', filesChanged: [`${t}.md`] });

    it('starts every ticket copy from the workflow’s snapshot, and records it with the merge', () => {
      const g = toTickets();
      expect(g.s.start.snapshot).toEqual({ id: SNAPSHOT, files: 3 });
      expect(g.open('ticket-agent').map((r) => r.worktree)).toEqual([
        { path: '/p/.stagecraft/worktrees/wf/ticket-T1.1', method: 'git-worktree', base: SNAPSHOT },
        { path: '/p/.stagecraft/worktrees/wf/ticket-T2.1', method: 'git-worktree', base: SNAPSHOT },
      ]);
      expect(workflowView(g.s).worktrees.map((w) => [w.ticketId, w.state])).toEqual([
        ['T1', 'pending'],
        ['T2', 'pending'],
      ]);
      g.finish('ticket-agent', done('T1'));
      g.finish('ticket-agent', done('T2'));
      const versions = { base: 'b\n', ours: 'user\n', theirs: 'ticket\n', diff: '-user\n+ticket\n' };
      const merged = g.when({
        type: 'WorktreesMerged',
        merged: [
          { agentId: 'ticket-T1', files: ['T1.md'] },
          { agentId: 'ticket-T2', files: [] },
        ],
        conflicts: [
          {
            path: 'T2.md',
            agentIds: ['ticket-T2'],
            reason: 'both-edited',
            kept: '/p/.stagecraft/worktrees/wf/ticket-T2.1/T2.md',
            versions,
          },
        ],
        snapshotId: SNAPSHOT,
      });
      expect(merged[0]).toMatchObject({ type: 'WorktreesMerged', data: { snapshotId: SNAPSHOT } });
      // The collector gets the conflict with its three versions and the diff.
      const conflicts = g.open('ticket-collector')[0].upstream.find((u) => u.kind === 'merge-conflicts');
      expect(conflicts).toEqual({
        kind: 'merge-conflicts',
        conflicts: [
          {
            path: 'T2.md',
            agentIds: ['ticket-T2'],
            contextIds: [Object.values(g.s.runs).find((r) => r.agentId === 'ticket-T2')?.contextId],
            reason: 'both-edited',
            kept: '/p/.stagecraft/worktrees/wf/ticket-T2.1/T2.md',
            versions,
          },
        ],
      });
      g.finish('ticket-collector', json(consolidation({ decisionType: 'ADVANCE' })));
      const view = workflowView(g.s);
      expect(view.status).toBe('completed');
      expect(view.conflicts).toEqual([
        { path: 'T2.md', agentIds: ['ticket-T2'], reason: 'both-edited', kept: '/p/.stagecraft/worktrees/wf/ticket-T2.1/T2.md' },
      ]);
      expect(view.worktrees.map((w) => [w.ticketId, w.state])).toEqual([
        ['T1', 'merged'],
        ['T2', 'conflicted'],
      ]);
    });

    it('keeps the copies of a refused merge, and of a workflow that ended before merging', () => {
      const refused = toTickets({ gates: { afterPlanning: false, beforeMerge: true } });
      refused.finish('ticket-agent', done('T1'));
      refused.finish('ticket-agent', done('T2'));
      expect(refused.s.pendingApproval?.kind).toBe('before_merge');
      refused.when({ type: 'ApprovalAnswered', decision: 'deny', reason: 'not now' });
      expect(workflowView(refused.s).worktrees.map((w) => w.state)).toEqual(['refused', 'refused']);
      const stopped = toTickets();
      stopped.finish('ticket-agent', done('T1'));
      stopped.when({ type: 'WorkflowStopped', fault: { code: 'UNAVAILABLE', message: 'gone' } });
      expect(workflowView(stopped.s).worktrees.map((w) => w.state)).toEqual(['not-merged', 'not-merged']);
    });

    it('cancels a live workflow once: nothing more is dispatched, and an ended one is left as it ended', () => {
      const g = toTickets();
      const cancelled = g.when({ type: 'WorkflowCancelRequested', by: 'cli', reason: 'changed my mind' });
      expect(cancelled).toEqual([{ type: 'WorkflowCancelled', data: { by: 'cli', reason: 'changed my mind' } }]);
      expect(g.s.status).toBe('cancelled');
      expect(g.s.summary).toBe('cancelled by cli: changed my mind');
      expect(workflowEffects(g.state)).toEqual([]);
      // An agent that reports afterwards changes nothing, nor does a second cancellation.
      expect(g.finish('ticket-agent', done('T1'))).toEqual([]);
      expect(g.when({ type: 'WorkflowCancelRequested', by: 'cli', reason: '' })).toEqual([]);
      expect(workflowView(g.s).worktrees.map((w) => w.state)).toEqual(['not-merged', 'not-merged']);
    });
  });
});
