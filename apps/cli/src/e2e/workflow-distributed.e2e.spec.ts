import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EventOf,
  PlanningCollectorResult,
  ServiceName,
  StagecraftEvent,
  UpstreamKind,
  WorkflowStartRequest,
  WorkflowView,
  streams,
} from '@stagecraft/contracts';
import { RecordedEvent } from '@stagecraft/event-store';
import { RecordedRequest, ScriptedModelServer, startScriptedModelServer, workflowScript } from '@stagecraft/scripted-model';
import { REPO_ROOT, eventually, exitOf, freePort, spawnApp, startServiceProcesses, waitForHttp } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * Three-phase workflows (docs/decisions/0023) on the distributed deployment: six processes, one
 * nats-server, one sqlite file, the scripted workflow agent over HTTP. The agents of a phase run side
 * by side, each gets exactly its upstream context, a killed conversation process picks the workflow
 * up where it stopped, and a gate waits through a restart of every process.
 */

/** Long enough per reply that a phase's agents are caught running, short enough for a quick workflow. */
const LATENCY_MS = 150;
const WORKFLOW_TIMEOUT_MS = 90_000;

/** Decision 0023's table: what each agent type builds on, in order (two agents per phase, two tickets). */
const UPSTREAM_KINDS: Record<string, UpstreamKind[]> = {
  'discovery-orchestrator': ['goal'],
  'discovery-agent': ['delegation'],
  'discovery-collector': ['discovery', 'discovery'],
  'planning-orchestrator': ['discovery-collector'],
  'planning-agent': ['discovery-collector'],
  'planning-collector': ['planning', 'planning', 'discovery-collector'],
  'ticket-orchestrator': ['discovery-collector', 'planning-collector'],
  'ticket-agent': ['discovery-collector', 'planning-collector', 'ticket'],
  'ticket-collector': ['ticket-result', 'ticket-result', 'discovery-collector', 'planning-collector'],
};

/** The `###` heading each upstream kind is rendered under (libs/context's contributors). */
const HEADINGS: [UpstreamKind, RegExp][] = [
  ['goal', /^### Goal$/],
  ['delegation', /^### Delegation \S+$/],
  ['discovery-collector', /^### Discovery collector result \S+$/],
  ['discovery', /^### Discovery report \S+$/],
  ['planning-collector', /^### Planning collector result \S+$/],
  ['planning', /^### Planning result \S+$/],
  ['ticket-result', /^### Ticket result \S+$/],
  ['ticket', /^### Ticket [^\s:]+: /],
  ['merge-conflicts', /^### Merge conflicts$/],
  ['consolidation', /^### Consolidation \S+$/],
  ['result', /^### Result from \S+ \S+$/],
];

/** The kinds of the `###` headings under `## Upstream context` of a system prompt, in order. */
function upstreamHeadings(system: string): string[] {
  const section = system.split(/^## Upstream context$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('### '))
    .map((line) => HEADINGS.find(([, pattern]) => pattern.test(line))?.[0] ?? `unknown: ${line}`);
}

const systemPromptOf = (request: RecordedRequest): string => {
  const messages: { role?: string; content?: unknown }[] = request.body?.messages ?? [];
  const system = messages.find((m) => m.role === 'system')?.content;
  return typeof system === 'string' ? system : '';
};

type Logged = RecordedEvent & StagecraftEvent;

describe('three-phase workflows across six processes', () => {
  const prefix = 'wf-e2e';
  let server: ScriptedModelServer;
  let dir: string;
  let system: DistributedSystem;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script: workflowScript({ agentsPerPhase: 2, latencyMs: LATENCY_MS }) });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-workflow-e2e-'));
    system = await startDistributedSystem({
      prefix,
      storePath: join(dir, 'events.db'),
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' },
    });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a workflow over NATS on a fresh copy of the sample project. */
  async function startWorkflow(name: string, extra: Partial<WorkflowStartRequest> = {}): Promise<{ workflowId: string; root: string }> {
    const root = join(dir, name);
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), root, { recursive: true });
    const { workflowId } = await system.requester.request('workflow.start', {
      goal: 'Add a Kelvin conversion to the temperature tools',
      projectRoot: root,
      ...extra,
    });
    return { workflowId, root };
  }

  const view = (workflowId: string): Promise<WorkflowView> => system.requester.request('workflow.get', { workflowId });

  /** Waits for the workflow to end and expects it completed, showing the services' output when it did not. */
  async function expectCompleted(workflowId: string): Promise<WorkflowView> {
    const end = await eventually(
      async () => {
        const v = await view(workflowId);
        return v.status === 'completed' || v.status === 'failed' ? v : undefined;
      },
      `workflow ${workflowId} to end`,
      { timeoutMs: WORKFLOW_TIMEOUT_MS, intervalMs: 200 },
    );
    const logs = end.status === 'completed' ? '' : system.services.map((s) => `--- ${s.name}\n${s.output()}`).join('\n');
    expect({ status: end.status, failure: end.failure, logs }).toEqual({ status: 'completed', failure: null, logs: '' });
    return end;
  }

  /** Every stored event in global order. */
  const everything = async (): Promise<Logged[]> => (await system.store.readAll()) as Logged[];
  const workflowLog = (all: Logged[], workflowId: string) => all.filter((e) => e.streamId === streams.workflow(workflowId));
  const dispatches = (log: Logged[]) => log.filter((e): e is Logged & EventOf<'AgentDispatched'> => e.type === 'AgentDispatched');
  const returned = (log: Logged[]) => new Set(log.flatMap((e) => (e.type === 'AgentReturned' ? [e.data.runId] : [])));

  /** The global position of a run's first event of `type`. */
  const positionOf = (all: Logged[], runId: string, type: 'RunStarted' | 'RunCompleted'): bigint => {
    const event = all.find((e) => e.streamId === streams.run(runId) && e.type === type);
    if (event === undefined) throw new Error(`run ${runId} has no ${type}`);
    return event.position;
  };

  /** No dispatch repeats an (agentId, phase, round, attempt), and no run of the workflow was started twice. */
  function expectNothingTwice(all: Logged[], workflowId: string): void {
    const round = new Map<string, number>();
    const keys: string[] = [];
    for (const event of workflowLog(all, workflowId)) {
      if (event.type === 'PhaseStarted') round.set(event.data.phase, event.data.round);
      if (event.type === 'AgentDispatched')
        keys.push(`${event.data.agentId}/${event.data.phase}/${round.get(event.data.phase)}/${event.data.attempt}`);
    }
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
    const started = all.flatMap((e) => (e.type === 'RunStarted' && e.data.runId.startsWith(`${workflowId}.`) ? [e.data.runId] : []));
    expect(started.filter((runId, i) => started.indexOf(runId) !== i)).toEqual([]);
  }

  it('runs discovery, planning and tickets with overlapping agents, exact upstream context and the tickets merged', async () => {
    const { workflowId, root } = await startWorkflow('complete');
    const end = await expectCompleted(workflowId);
    expect(end.phases.map((p) => [p.phase, p.decision?.decisionType])).toEqual([
      ['discovery', 'ADVANCE'],
      ['planning', 'ADVANCE'],
      ['tickets', 'ADVANCE'],
    ]);

    const all = await everything();
    const log = workflowLog(all, workflowId);
    const sent = dispatches(log);
    // Each phase dispatched at least two work agents, and the second started before the first finished.
    for (const phase of ['discovery', 'planning', 'tickets']) {
      const agents = sent
        .filter((d) => d.data.phase === phase && d.data.role === 'agent')
        .map((d) => ({ runId: d.data.runId, started: positionOf(all, d.data.runId, 'RunStarted') }))
        .sort((a, b) => (a.started < b.started ? -1 : 1));
      expect({ phase, agents: agents.length >= 2 }).toEqual({ phase, agents: true });
      const [first, second] = agents;
      expect({ phase, overlapped: second.started < positionOf(all, first.runId, 'RunCompleted') }).toEqual({ phase, overlapped: true });
    }

    // The tickets' files, as the planning collector planned them, are in the project root after the merge.
    const plan = log.find(
      (e): e is Logged & EventOf<'AgentReturned'> =>
        e.type === 'AgentReturned' && e.data.agentId === 'planning-collector' && e.data.outcome === 'completed',
    );
    const planned = (plan?.data.result as PlanningCollectorResult).tickets;
    expect(planned.map((t) => t.ticketId)).toEqual(['T1', 'T2']);
    const merged = log.find((e): e is Logged & EventOf<'WorktreesMerged'> => e.type === 'WorktreesMerged');
    expect(merged?.data.conflicts).toEqual([]);
    for (const ticket of planned) {
      for (const file of ticket.files) {
        expect({ file, exists: existsSync(join(root, file)) }).toEqual({ file, exists: true });
        expect(readFileSync(join(root, file), 'utf8')).toContain(`Ticket ${ticket.ticketId}`);
      }
    }

    // Each agent run got exactly its type's upstream kinds, in its brief and in every prompt the model saw.
    const seenTypes = new Set<string>();
    for (const dispatch of sent) {
      const { runId, agentType } = dispatch.data;
      seenTypes.add(agentType);
      const started = all.find((e): e is Logged & EventOf<'RunStarted'> => e.streamId === streams.run(runId) && e.type === 'RunStarted');
      const kinds = started?.data.agent?.upstream.map((u) => u.kind);
      expect({ runId, agentType, kinds }).toEqual({ runId, agentType, kinds: UPSTREAM_KINDS[agentType] });
      const prompts = server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);
      // The QA reviewer works from the run's answer alone (its own role prompt), not from the agent's inputs.
      const own = prompts.filter((r) => r.stage !== 'qa_review');
      expect({ runId, acted: own.some((r) => r.stage === 'act') }).toEqual({ runId, acted: true });
      for (const request of own) {
        expect({ runId, agentType, stage: request.stage, headings: upstreamHeadings(systemPromptOf(request)) }).toEqual({
          runId,
          agentType,
          stage: request.stage,
          headings: UPSTREAM_KINDS[agentType],
        });
      }
    }
    expect([...seenTypes].sort()).toEqual(Object.keys(UPSTREAM_KINDS).sort());
    expectNothingTwice(all, workflowId);
  }, 120_000);

  it('a conversation process killed while planning agents run: the new one finishes the workflow, starting nothing twice', async () => {
    const { workflowId } = await startWorkflow('killed');
    const running = await eventually(
      async () => {
        const log = workflowLog(await everything(), workflowId);
        const done = returned(log);
        return dispatches(log).find((d) => d.data.agentType === 'planning-agent' && !done.has(d.data.runId));
      },
      'a planning agent to be running',
      { timeoutMs: WORKFLOW_TIMEOUT_MS, intervalMs: 20 },
    );

    const index = system.services.findIndex((s) => s.name === 'conversation');
    const killed = system.services[index];
    killed.child.kill('SIGKILL');
    expect(await exitOf(killed.child)).toBeNull();
    expect(killed.child.signalCode).toBe('SIGKILL');
    const atKill = workflowLog(await everything(), workflowId);
    expect(atKill.map((e) => e.type)).not.toContain('WorkflowCompleted');
    expect(returned(atKill).has(running.data.runId)).toBe(false);

    const port = await freePort();
    system.services[index] = spawnApp('conversation', system.envFor('conversation', port));
    await waitForHttp(`http://127.0.0.1:${port}/readyz`);
    await expectCompleted(workflowId);
    expectNothingTwice(await everything(), workflowId);
  }, 150_000);

  it('a workflow at the after-planning gate keeps waiting through a restart of every process, then an answer over NATS completes it', async () => {
    const { workflowId } = await startWorkflow('gated', { gates: { afterPlanning: true, beforeMerge: false } });
    const waiting = await eventually(
      async () => {
        const v = await view(workflowId);
        return v.status === 'waiting' || v.status === 'completed' || v.status === 'failed' ? v : undefined;
      },
      'the workflow to wait at its gate',
      { timeoutMs: WORKFLOW_TIMEOUT_MS, intervalMs: 200 },
    );
    expect({ status: waiting.status, kind: waiting.pendingApproval?.kind }).toEqual({ status: 'waiting', kind: 'after_planning' });
    expect(waiting.phases.map((p) => p.phase)).toEqual(['discovery', 'planning']);

    const codes = await Promise.all(system.services.map((s) => s.stop()));
    expect(codes).toEqual(system.services.map(() => 0));
    system.services = await startServiceProcesses((name, port) => system.envFor(name as ServiceName, port));
    const after = await view(workflowId);
    expect({ status: after.status, approvalId: after.pendingApproval?.approvalId }).toEqual({
      status: 'waiting',
      approvalId: waiting.pendingApproval?.approvalId,
    });
    expect(after.phases.map((p) => p.phase)).toEqual(['discovery', 'planning']);

    const answer = await system.requester.request('approval.answer', {
      id: workflowId,
      approvalId: after.pendingApproval!.approvalId,
      decision: 'approve',
    });
    expect(answer).toMatchObject({
      id: workflowId,
      target: 'workflow',
      approvalId: waiting.pendingApproval?.approvalId,
      decision: 'approve',
    });
    const end = await expectCompleted(workflowId);
    expect(end.phases.map((p) => p.phase)).toEqual(['discovery', 'planning', 'tickets']);
    const types = workflowLog(await everything(), workflowId).map((e) => e.type);
    expect(types.filter((t) => t.startsWith('Approval'))).toEqual(['ApprovalRequested', 'ApprovalGiven']);
    expectNothingTwice(await everything(), workflowId);
  }, 150_000);
});
