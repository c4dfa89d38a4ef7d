import { workflowView } from './view';
import { SNAPSHOT, consolidation, done, json, start, toTickets } from './workflow.testing';

describe('merging the ticket agents’ copies: nothing the user has is lost (docs/decisions/0036)', () => {
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
    expect(workflowView(refused.s).pendingApproval?.kind).toBe('before_merge');
    refused.when({ type: 'ApprovalAnswered', decision: 'deny', reason: 'not now' });
    expect(workflowView(refused.s).worktrees.map((w) => w.state)).toEqual(['refused', 'refused']);
    const stopped = toTickets();
    stopped.finish('ticket-agent', done('T1'));
    stopped.when({ type: 'WorkflowStopped', fault: { code: 'UNAVAILABLE', message: 'gone' } });
    expect(workflowView(stopped.s).worktrees.map((w) => w.state)).toEqual(['not-merged', 'not-merged']);
  });
});
