import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventOf, StagecraftEvent, WorkflowView, streams } from '@stagecraft/contracts';
import { RecordedEvent } from '@stagecraft/event-store';
import { ScriptedModelServer, startScriptedModelServer, workflowScript } from '@stagecraft/scripted-model';
import { REPO_ROOT, eventually } from '@stagecraft/testing';
import { ScriptedDeployment, distributedDeployment, embeddedDeployment } from './scripted-deployments';

/**
 * Nothing the user has is lost to a workflow (docs/decisions/0036), on both deployments: ticket agents
 * start from the working tree as it is (an uncommitted edit and an untracked file included), a file the
 * user edits while the workflow waits at its before-merge gate is merged line by line when the edits do
 * not overlap and is otherwise left as the user has it with the ticket's version kept, and the agents
 * that work in the project root are offered no tool that writes.
 */
type Logged = RecordedEvent & StagecraftEvent;
const WRITING = ['write_file', 'apply_patch', 'run_command'];
const TIMEOUT_MS = 120_000;
const lines = (change: Record<number, string> = {}) =>
  Array.from({ length: 12 }, (_, i) => change[i + 1] ?? `note ${i + 1}`).join('\n') + '\n';

describe.each([
  ['embedded', (dir: string, url: string) => embeddedDeployment(dir, url)],
  ['distributed', (dir: string, url: string) => distributedDeployment(dir, url, 'wf-safety')],
])('a workflow never destroys the user’s work (%s)', (_, deploy) => {
  let server: ScriptedModelServer;
  let dir: string;
  let system: ScriptedDeployment;

  beforeAll(async () => {
    server = await startScriptedModelServer({
      script: workflowScript({
        agentsPerPhase: 2,
        ticketFile: { T1: 'NOTES.md', T2: 'UNTRACKED.md' },
        extend: ['NOTES.md', 'UNTRACKED.md'],
      }),
    });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-workflow-safety-'));
    system = await deploy(dir, server.url);
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const view = (workflowId: string): Promise<WorkflowView> => system.requester.request('workflow.get', { workflowId });
  const settled = (workflowId: string, wanted: (v: WorkflowView) => boolean, what: string) =>
    eventually(
      async () => {
        const v = await view(workflowId);
        return wanted(v) || v.status === 'failed' ? v : undefined;
      },
      what,
      { timeoutMs: TIMEOUT_MS, intervalMs: 200 },
    );
  const everything = async (): Promise<Logged[]> => (await system.store.readAll()) as Logged[];

  /** The sample project as a git repository with one commit, then edited without committing. */
  function project(name: string): string {
    const root = join(dir, name);
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), root, { recursive: true });
    writeFileSync(join(root, 'NOTES.md'), lines());
    writeFileSync(join(root, '.gitignore'), '.stagecraft/\n');
    const git = (...args: string[]) => execFileSync('git', ['-C', root, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args]);
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'init');
    writeFileSync(join(root, 'NOTES.md'), lines({ 1: 'note 1, edited and not committed' }));
    writeFileSync(join(root, 'UNTRACKED.md'), 'untracked, never added\n');
    return root;
  }

  it('starts tickets from the working tree, merges the user’s gate-time edit cleanly or keeps both versions, and lists the kept copy', async () => {
    const root = project('before-merge');
    const { workflowId } = await system.requester.request('workflow.start', {
      goal: 'Add a note for each ticket',
      projectRoot: root,
      gates: { afterPlanning: false, beforeMerge: true },
    });
    const waiting = await settled(workflowId, (v) => v.pendingApproval?.kind === 'before_merge', 'the before-merge gate');
    expect({ status: waiting.status, failure: waiting.failure }).toEqual({ status: 'waiting', failure: null });
    expect(waiting.worktrees.map((w) => [w.ticketId, w.state])).toEqual([
      ['T1', 'pending'],
      ['T2', 'pending'],
    ]);

    // While the workflow waits, the user edits both files the tickets changed: one far from the ticket's lines, one over them.
    writeFileSync(join(root, 'NOTES.md'), lines({ 1: 'note 1, edited and not committed', 5: 'note 5, edited at the gate' }));
    writeFileSync(join(root, 'UNTRACKED.md'), 'rewritten by the user at the gate\n');
    await system.requester.request('approval.answer', {
      id: workflowId,
      approvalId: waiting.pendingApproval!.approvalId,
      decision: 'approve',
    });
    const end = await settled(workflowId, (v) => v.status === 'completed', 'the workflow to end');
    expect({ status: end.status, failure: end.failure }).toEqual({ status: 'completed', failure: null });

    const all = await everything();
    const log = all.filter((e) => e.streamId === streams.workflow(workflowId));
    const started = log.find((e): e is Logged & EventOf<'WorkflowStarted'> => e.type === 'WorkflowStarted');
    expect(started?.data.snapshot?.id).toMatch(/^[0-9a-f]{64}$/);
    const dispatched = log.filter((e): e is Logged & EventOf<'AgentDispatched'> => e.type === 'AgentDispatched');
    const tickets = dispatched.filter((d) => d.data.agentType === 'ticket-agent');
    expect(tickets.map((d) => d.data.worktree?.base)).toEqual(tickets.map(() => started?.data.snapshot?.id));

    // Each ticket agent read its file from its copy: the uncommitted edit and the untracked file were there.
    const readBy = (runId: string) =>
      all.find(
        (e): e is Logged & EventOf<'ToolCallCompleted'> =>
          e.streamId === streams.run(runId) && e.type === 'ToolCallCompleted' && e.data.tool === 'read_file',
      );
    const [t1, t2] = tickets.map((d) => d.data.runId);
    expect(readBy(t1)?.data).toMatchObject({ ok: true, output: lines({ 1: 'note 1, edited and not committed' }) });
    expect(readBy(t2)?.data).toMatchObject({ ok: true, output: 'untracked, never added\n' });

    // NOTES.md: the user's edits and the ticket's addition, merged line by line.
    const notes = readFileSync(join(root, 'NOTES.md'), 'utf8');
    expect(notes).toBe(
      `${lines({ 1: 'note 1, edited and not committed', 5: 'note 5, edited at the gate' })}\n# Ticket T1\n\n${notes.split('# Ticket T1\n\n')[1]}`,
    );
    // UNTRACKED.md: both changed the same lines, so the user's file stays and the ticket's is kept in its copy.
    expect(readFileSync(join(root, 'UNTRACKED.md'), 'utf8')).toBe('rewritten by the user at the gate\n');
    const merged = log.find((e): e is Logged & EventOf<'WorktreesMerged'> => e.type === 'WorktreesMerged');
    expect(merged?.data.merged.flatMap((m) => m.files)).toEqual(['NOTES.md']);
    expect(merged?.data.conflicts).toEqual([
      expect.objectContaining({ path: 'UNTRACKED.md', agentIds: ['ticket-T2'], reason: 'both-edited', kept: expect.any(String) }),
    ]);
    const conflict = merged!.data.conflicts[0];
    expect(readFileSync(conflict.kept!, 'utf8')).toMatch(/^untracked, never added\n\n# Ticket T2\n/);
    expect(conflict.versions).toMatchObject({ base: 'untracked, never added\n', ours: 'rewritten by the user at the gate\n' });
    expect(conflict.versions?.diff).toContain('-rewritten by the user at the gate');

    // The ticket collector was told, with the versions.
    const collector = dispatched.find((d) => d.data.agentType === 'ticket-collector');
    expect(collector?.data.upstream.find((u) => u.kind === 'merge-conflicts')).toMatchObject({
      conflicts: [
        expect.objectContaining({
          path: 'UNTRACKED.md',
          versions: expect.objectContaining({ ours: 'rewritten by the user at the gate\n' }),
        }),
      ],
    });

    // The merged copy is gone, the conflicted one is kept and listed.
    expect(end.conflicts).toEqual([expect.objectContaining({ path: 'UNTRACKED.md', kept: conflict.kept })]);
    expect(end.worktrees.map((w) => [w.ticketId, w.state])).toEqual([
      ['T1', 'merged'],
      ['T2', 'conflicted'],
    ]);
    expect(existsSync(end.worktrees[0].path)).toBe(false);
    expect(existsSync(end.worktrees[1].path)).toBe(true);

    // Only ticket agents were offered tools that write; every other agent read only.
    for (const d of dispatched) {
      const offered = new Set<string>(
        all.flatMap((e) => (e.streamId === streams.run(d.data.runId) && e.type === 'ModelRequested' ? e.data.toolNames : [])),
      );
      const writing = WRITING.filter((t) => offered.has(t));
      expect({ agent: d.data.agentType, writing: writing.length > 0 }).toEqual({
        agent: d.data.agentType,
        writing: d.data.agentType === 'ticket-agent',
      });
    }
    const discovery = dispatched.filter((d) => d.data.agentType === 'discovery-agent');
    expect(discovery.length).toBe(2);
  }, 180_000);

  it('keeps every copy when the user denies the merge, and says where they are', async () => {
    const root = project('denied');
    const { workflowId } = await system.requester.request('workflow.start', {
      goal: 'Add a note for each ticket',
      projectRoot: root,
      gates: { afterPlanning: false, beforeMerge: true },
    });
    const waiting = await settled(workflowId, (v) => v.pendingApproval?.kind === 'before_merge', 'the before-merge gate');
    await system.requester.request('approval.answer', {
      id: workflowId,
      approvalId: waiting.pendingApproval!.approvalId,
      decision: 'deny',
      reason: 'not now',
    });
    const end = await settled(workflowId, (v) => v.status === 'completed', 'the workflow to end');
    expect({ status: end.status, failure: end.failure }).toEqual({ status: 'completed', failure: null });
    expect(readFileSync(join(root, 'NOTES.md'), 'utf8')).toBe(lines({ 1: 'note 1, edited and not committed' }));
    expect(end.worktrees.map((w) => [w.ticketId, w.state])).toEqual([
      ['T1', 'refused'],
      ['T2', 'refused'],
    ]);
    for (const w of end.worktrees) expect({ path: w.path, kept: existsSync(w.path) }).toEqual({ path: w.path, kept: true });
    expect(readFileSync(join(end.worktrees[0].path, 'NOTES.md'), 'utf8')).toContain('# Ticket T1');
  }, 180_000);
});

describe.each([
  ['embedded', (dir: string, url: string) => embeddedDeployment(dir, url)],
  ['distributed', (dir: string, url: string) => distributedDeployment(dir, url, 'wf-cancel')],
])('workflow.cancel (%s)', (_, deploy) => {
  let server: ScriptedModelServer;
  let dir: string;
  let system: ScriptedDeployment;

  beforeAll(async () => {
    // Slow enough that the discovery agents are caught running.
    server = await startScriptedModelServer({ script: workflowScript({ agentsPerPhase: 2, latencyMs: 400 }) });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-workflow-cancel-'));
    system = await deploy(dir, server.url);
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops dispatching, cancels the agents that run (by workflow), and leaves an ended workflow as it ended', async () => {
    const root = join(dir, 'cancelled');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), root, { recursive: true });
    const { workflowId } = await system.requester.request('workflow.start', { goal: 'Document the converters', projectRoot: root });
    const everything = async (): Promise<Logged[]> => (await system.store.readAll()) as Logged[];
    const running = await eventually(
      async () => {
        const all = await everything();
        const started = new Set(all.flatMap((e) => (e.type === 'RunStarted' ? [e.data.runId] : [])));
        const agents = all.filter(
          (e): e is Logged & EventOf<'AgentDispatched'> =>
            e.streamId === streams.workflow(workflowId) && e.type === 'AgentDispatched' && e.data.agentType === 'discovery-agent',
        );
        return agents.length === 2 && agents.every((a) => started.has(a.data.runId)) ? agents.map((a) => a.data.runId) : undefined;
      },
      'two discovery agents to run',
      { timeoutMs: TIMEOUT_MS, intervalMs: 20 },
    );
    const reply = await system.requester.request('workflow.cancel', { workflowId, reason: 'wrong goal' });
    expect(reply).toMatchObject({ workflowId, outcome: 'cancelled', status: 'cancelled' });
    expect(reply.cancelledRuns.filter((runId) => running.includes(runId)).length).toBeGreaterThan(0);

    const v = await system.requester.request('workflow.get', { workflowId });
    expect({ status: v.status, summary: v.summary }).toEqual({ status: 'cancelled', summary: 'cancelled by cli: wrong goal' });
    // Every run of the workflow ends, the cancelled ones with who and why; nothing is dispatched after.
    const all = await eventually(
      async () => {
        const events = await everything();
        const ended = new Set(events.flatMap((e) => (['RunCompleted', 'RunFailed', 'RunCancelled'].includes(e.type) ? [e.streamId] : [])));
        const runs = events.flatMap((e) => (e.type === 'RunStarted' && e.data.runId.startsWith(`${workflowId}.`) ? [e.data.runId] : []));
        return runs.every((runId) => ended.has(streams.run(runId))) ? events : undefined;
      },
      'every agent run to end',
      { timeoutMs: TIMEOUT_MS, intervalMs: 50 },
    );
    for (const runId of reply.cancelledRuns) {
      const cancelled = all.find(
        (e): e is Logged & EventOf<'RunCancelled'> => e.streamId === streams.run(runId) && e.type === 'RunCancelled',
      );
      expect({ runId, by: cancelled?.data.by, reason: cancelled?.data.reason }).toEqual({
        runId,
        by: 'workflow',
        reason: `workflow ${workflowId} was cancelled: wrong goal`,
      });
    }
    const log = all.filter((e) => e.streamId === streams.workflow(workflowId)).map((e) => e.type);
    expect(log.slice(log.indexOf('WorkflowCancelled') + 1)).toEqual([]);

    const again = await system.requester.request('workflow.cancel', { workflowId });
    expect(again).toEqual({ workflowId, outcome: 'ended', status: 'cancelled', cancelledRuns: [] });
    await expect(system.requester.request('workflow.cancel', { workflowId: 'no-such-workflow' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  }, 180_000);
});
