import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StagecraftEvent, WorkflowView, runEvents, streams, workflowEvents } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import { ScriptedDecision, WorkflowScriptOptions, workflowScript } from '@stagecraft/scripted-model';
import { eventually } from '@stagecraft/testing';
import { EmbeddedServices, startEmbedded } from '@stagecraft/testing-system';

const storeOf = (system: EmbeddedServices) => {
  const { store } = system.host.ports;
  if (store === null) throw new Error('the embedded services have a store');
  return store;
};

const SAMPLE = join(__dirname, '..', '..', '..', '..', '..', 'examples', 'sample-project');

/** The kind of each upstream section a system prompt holds, in order, read from its `###` headings. */
function upstreamHeadings(system: string): string[] {
  const kinds: [RegExp, string][] = [
    [/^### Goal$/, 'goal'],
    [/^### Delegation /, 'delegation'],
    [/^### Discovery report /, 'discovery'],
    [/^### Discovery collector result /, 'discovery-collector'],
    [/^### Planning result /, 'planning'],
    [/^### Planning collector result /, 'planning-collector'],
    [/^### Ticket result /, 'ticket-result'],
    [/^### Ticket /, 'ticket'],
    [/^### Merge conflicts$/, 'merge-conflicts'],
  ];
  return system.split('\n').flatMap((line) => {
    const found = kinds.find(([pattern]) => pattern.test(line));
    return found ? [found[1]] : [];
  });
}

/** Decision 0023's table: the upstream kinds each agent type gets, n being the phase's work agents. */
const EXPECTED: Record<string, (n: number) => string[]> = {
  'discovery-orchestrator': () => ['goal'],
  'discovery-agent': () => ['delegation'],
  'discovery-collector': (n) => Array(n).fill('discovery'),
  'planning-orchestrator': () => ['discovery-collector'],
  'planning-agent': () => ['discovery-collector'],
  'planning-collector': (n) => [...Array(n).fill('planning'), 'discovery-collector'],
  'ticket-orchestrator': () => ['discovery-collector', 'planning-collector'],
  'ticket-agent': () => ['discovery-collector', 'planning-collector', 'ticket'],
  'ticket-collector': (n) => [...Array(n).fill('ticket-result'), 'discovery-collector', 'planning-collector'],
};

describe('workflows, embedded, with the scripted agents', () => {
  let system: EmbeddedServices;
  let decisions: ((r: { agentType: string; phase: string; system: string; user: string }) => ScriptedDecision | undefined) | undefined;

  const start = async (options: WorkflowScriptOptions = {}) => {
    const script = workflowScript({ agentsPerPhase: 2, ...options, decide: (r) => decisions?.(r) });
    system = await startEmbedded({ script, dirPrefix: 'stagecraft-workflow-', requestTimeoutMs: 30_000 });
    cpSync(SAMPLE, system.project, { recursive: true });
  };
  afterEach(async () => {
    decisions = undefined;
    await system?.close();
  });

  const run = async (request: Record<string, unknown> = {}): Promise<{ view: WorkflowView; events: StagecraftEvent[] }> => {
    const { requester } = system.host.ports;
    const { workflowId } = await requester.request('workflow.start', {
      goal: 'Document the converters',
      projectRoot: system.project,
      ...request,
    });
    const view = await eventually(
      async () => {
        const v = await requester.request('workflow.get', { workflowId });
        return v.status === 'completed' || v.status === 'failed' || v.status === 'waiting' ? v : undefined;
      },
      'the workflow to end',
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    const events = (await readEvents(storeOf(system), streams.workflow(workflowId), workflowEvents)) as unknown as StagecraftEvent[];
    return { view, events };
  };

  /** The prompt of each agent run's act request (its system message and its stage's part), by run id. */
  const actPrompts = () => {
    const prompts = new Map<string, string>();
    for (const r of system.server.requests)
      if (r.stage === 'act' && !prompts.has(r.headers['x-stagecraft-run-id']))
        prompts.set(
          r.headers['x-stagecraft-run-id'],
          (r.body.messages as { role: string; content: string }[])
            .filter((m) => m.role === 'system')
            .map((m) => m.content)
            .join('\n\n'),
        );
    return prompts;
  };

  it('runs discovery, planning and tickets with parallel agents, exact upstream context, and merges the tickets’ edits', async () => {
    // Replies take a moment, as the distributed test's do: a ticket agent's copy is made while its sibling works.
    await start({ latencyMs: 150 });
    const { view, events } = await run();
    expect([
      view.status,
      view.phases.flatMap((p) => p.agents.filter((a) => a.status !== 'completed').map((a) => `${a.agentId}: ${a.summary}`)),
    ]).toEqual(['completed', []]);
    expect(view.phases.map((p) => `${p.phase}:${p.decision?.decisionType}`)).toEqual([
      'discovery:ADVANCE',
      'planning:ADVANCE',
      'tickets:ADVANCE',
    ]);
    for (const phase of view.phases) expect(phase.agents.filter((a) => a.role === 'agent').length).toBeGreaterThanOrEqual(2);

    // Parallel: in every phase, the second agent's run started before the first one's ended.
    const store = storeOf(system);
    for (const phase of view.phases) {
      const [a, b] = phase.agents.filter((x) => x.role === 'agent');
      const first = await readEvents(store, streams.run(a.runId), runEvents);
      const second = await readEvents(store, streams.run(b.runId), runEvents);
      const ended = first.find((e) => e.type === 'RunCompleted');
      const started = second.find((e) => e.type === 'RunStarted');
      expect([phase.phase, first.at(-1)?.type, started?.type]).toEqual([phase.phase, 'RunCompleted', 'RunStarted']);
      expect([phase.phase, (started?.position ?? 0n) < (ended?.position ?? 0n)]).toEqual([phase.phase, true]);
    }

    // The tickets' edits are in the project root, merged from the agents' copies.
    const merged = events.find((e) => e.type === 'WorktreesMerged') as Extract<StagecraftEvent, { type: 'WorktreesMerged' }>;
    const files = merged.data.merged.flatMap((m) => m.files);
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const file of files) expect(existsSync(join(system.project, file))).toBe(true);
    expect(readFileSync(join(system.project, files[0]), 'utf8')).toContain('Ticket');
    // The copies are removed just after the workflow records its end.
    await eventually(
      async () => (existsSync(join(system.project, '.stagecraft', 'worktrees', view.workflowId)) ? undefined : true),
      'the worktrees removed',
    );

    // Each agent's recorded prompt holds exactly the upstream context its type gets.
    const prompts = actPrompts();
    const checked = new Set<string>();
    for (const phase of view.phases) {
      const n = phase.agents.filter((a) => a.role === 'agent').length;
      for (const agent of phase.agents) {
        const system = prompts.get(agent.runId);
        expect(system).toBeDefined();
        expect([agent.agentType, upstreamHeadings(system ?? '')]).toEqual([agent.agentType, EXPECTED[agent.agentType](n)]);
        expect(system).toContain(`agent type \`${agent.agentType}\``);
        // Siblings share an agent type: each reads one assignment as its own, the others as boundaries.
        if (agent.agentType === 'discovery-agent')
          expect([agent.agentId, (system ?? '').split('Your assignment:').length - 1]).toEqual([agent.agentId, 1]);
        checked.add(agent.agentType);
      }
    }
    expect([...checked].sort()).toEqual(Object.keys(EXPECTED).sort());
  }, 180_000);

  it('re-runs the agent a collector names, with its previous attempt in its prompt, then consolidates again', async () => {
    await start();
    decisions = ({ agentType, system }) =>
      agentType === 'discovery-collector' && !system.includes('## Previous attempt')
        ? { decisionType: 'RERUN', rerunAgentIds: ['discovery-agent-2'], rationale: 'look at the tests too' }
        : undefined;
    const { view } = await run({ phases: ['discovery'] });
    expect(view.status).toBe('completed');
    const agents = view.phases[0].agents;
    const rerun = agents.filter((a) => a.agentId === 'discovery-agent-2');
    expect(rerun.map((a) => a.attempt)).toEqual([1, 2]);
    expect(agents.filter((a) => a.agentId === 'discovery-agent-1').map((a) => a.attempt)).toEqual([1]);
    expect(agents.filter((a) => a.role === 'collector').map((a) => a.attempt)).toEqual([1, 2]);
    const prompt = actPrompts().get(rerun[1].runId) ?? '';
    expect(prompt).toContain('## Previous attempt');
    expect(prompt).toContain(rerun[0].contextId);
    expect(prompt).toContain('look at the tests too');
  }, 120_000);

  it('goes back one phase on ROUTE_BACK, and a collector that keeps asking is stopped by the limit', async () => {
    await start();
    decisions = ({ agentType }) =>
      agentType === 'planning-collector' ? { decisionType: 'ROUTE_BACK', rationale: 'the map misses the tests' } : undefined;
    const { view, events } = await run({ phases: ['discovery', 'planning'], limits: { maxRouteBacks: 1 } });
    expect(events.filter((e) => e.type === 'PhaseRerouted').map((e) => (e.data as { from: string; to: string }).to)).toEqual(['discovery']);
    expect(view.phases.map((p) => `${p.phase}#${p.round}:${p.status}`)).toEqual([
      'discovery#1:consolidated',
      'planning#1:rerouted',
      'discovery#2:consolidated',
      'planning#2:running',
    ]);
    expect(view.status).toBe('failed');
    expect(view.failure?.code).toBe('LIMIT_EXCEEDED');
    const orchestrator = view.phases[2].agents.find((a) => a.role === 'orchestrator');
    expect(actPrompts().get(orchestrator?.runId ?? '')).toContain('the map misses the tests');
  }, 120_000);

  it('asks an agent whose answer does not fit its schema again, with the issues', async () => {
    await start({ invalidOnce: ['discovery-orchestrator'] });
    const { view } = await run({ phases: ['discovery'] });
    expect(view.status).toBe('completed');
    const attempts = view.phases[0].agents.filter((a) => a.role === 'orchestrator');
    expect(attempts.map((a) => a.status)).toEqual(['invalid', 'completed']);
    expect(actPrompts().get(attempts[1].runId)).toContain('## Previous attempt');
  }, 120_000);

  it('applies the ticket collector’s resolution of two tickets’ conflicting file, then removes the merged copies', async () => {
    await start({ ticketFile: { T1: 'SHARED.md', T2: 'SHARED.md' }, resolveConflicts: true });
    const { view } = await run();
    expect({ status: view.status, failure: view.failure }).toEqual({ status: 'completed', failure: null });
    const { requester } = system.host.ports;
    const resolved = await eventually(
      async () => {
        const events = (await readEvents(
          storeOf(system),
          streams.workflow(view.workflowId),
          workflowEvents,
        )) as unknown as StagecraftEvent[];
        return events.find((e) => e.type === 'ConflictsResolved');
      },
      'the resolution to be applied',
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    expect(resolved.data).toEqual({ phase: 'tickets', round: 1, resolved: ['SHARED.md'], unresolved: [] });
    expect(readFileSync(join(system.project, 'SHARED.md'), 'utf8')).toBe(
      '# Resolved: SHARED.md\n\nKeeps the changes of ticket-T1 and ticket-T2.\n',
    );
    const after = await eventually(
      async () => {
        const v = await requester.request('workflow.get', { workflowId: view.workflowId });
        return v.worktrees.every((w) => !existsSync(w.path)) ? v : undefined;
      },
      'the merged copies to be removed',
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    expect(after.conflicts).toEqual([]);
    expect(after.worktrees.map((w) => w.state)).toEqual(['merged', 'merged']);
  }, 120_000);

  it('ends a workflow whose merge cannot run, keeping every ticket copy and saying where it is', async () => {
    await start();
    const { view: waiting } = await run({ gates: { afterPlanning: false, beforeMerge: true } });
    expect(waiting.pendingApproval?.kind).toBe('before_merge');
    expect(waiting.worktrees).toHaveLength(2);
    // What a copy started from is no longer readable: the merge cannot tell what the ticket changed.
    writeFileSync(`${waiting.worktrees[0].path}.base.json`, '{ not json');
    const { requester } = system.host.ports;
    await requester.request('approval.answer', {
      id: waiting.workflowId,
      approvalId: waiting.pendingApproval!.approvalId,
      decision: 'approve',
    });
    const end = await eventually(
      async () => {
        const v = await requester.request('workflow.get', { workflowId: waiting.workflowId });
        return v.status === 'failed' || v.status === 'completed' ? v : undefined;
      },
      'the workflow to end',
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    expect(end.status).toBe('failed');
    expect(end.failure?.reason).toMatch(/^the ticket changes could not be merged: /);
    expect(end.worktrees.map((w) => [w.ticketId, w.state])).toEqual([
      ['T1', 'not-merged'],
      ['T2', 'not-merged'],
    ]);
    for (const w of end.worktrees) expect(existsSync(w.path)).toBe(true);
    expect(existsSync(join(system.project, 'WORKFLOW_T1.md'))).toBe(false);
  }, 120_000);
});
