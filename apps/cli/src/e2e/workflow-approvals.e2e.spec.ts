import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowView } from '@stagecraft/contracts';
import { ScriptedModelServer, startScriptedModelServer, workflowScript } from '@stagecraft/scripted-model';
import { REPO_ROOT, eventually, runCli } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * Tool approvals inside a workflow (`--approve writes`): the ticket agents' writes wait for a person.
 * The waiting call is shown while `workflow start` follows and in `workflow show`; embedded, the command
 * stops (exit 4) and `approve <runId>` then `workflow resume` from other processes drive it to the end;
 * over NATS the follower keeps following while another process answers.
 */
const MAX_APPROVALS = 6;
const ticketFiles = (project: string) => readdirSync(project).filter((f) => /^WORKFLOW_.*\.md$/.test(f));
const waitingAgents = (view: WorkflowView) => view.phases.flatMap((p) => p.agents).filter((a) => a.pendingApproval !== undefined);

describe('tool approvals inside a workflow, embedded', () => {
  let server: ScriptedModelServer;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script: workflowScript({ agentsPerPhase: 2 }) });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-workflow-approvals-'));
    env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted', NATS_URL: '' };
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the waiting write, stops with exit 4, and goes on to the end through approve and workflow resume', async () => {
    const project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const store = ['--store', `sqlite:${join(dir, 'events.db')}`];
    const started = await runCli(
      ['workflow', 'start', 'Document the converters', '--root', project, '--approve', 'writes', '--parallel', '1', ...store],
      env,
      180_000,
    );
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 4, stderr: '' });
    const workflowId = /^workflow (\S+)$/m.exec(started.stdout)?.[1] ?? '';
    expect(started.stdout).toMatch(/⏸ ticket-\S+ waits for approval: .+ \(stagecraft approve \S+\)/);
    expect(started.stdout).toContain(`then go on with: stagecraft workflow resume ${workflowId} --root ${project}`);
    expect(ticketFiles(project)).toEqual([]);

    const shown = await runCli(['workflow', 'show', workflowId, ...store], env, 60_000);
    expect(shown.stdout).toMatch(/ticket-\S+ \[agent, ticket-agent\] attempt 1 dispatched → run \S+ ⏸ waits for approval \S+: /);

    let last = started;
    let approvals = 0;
    while (last.code === 4) {
      approvals += 1;
      expect(approvals).toBeLessThanOrEqual(MAX_APPROVALS);
      const runId = /\(stagecraft approve (\S+)\)/.exec(last.stdout)?.[1] ?? '';
      const approved = await runCli(['approve', runId, '--root', project, ...store], env, 180_000);
      expect({ code: approved.code, stderr: approved.stderr }).toEqual({ code: 0, stderr: '' });
      last = await runCli(['workflow', 'resume', workflowId, '--root', project, ...store], env, 180_000);
      expect(last.stderr).toBe('');
    }
    expect(last.code).toBe(0);
    expect(last.stdout).toContain('✔ completed');
    expect(approvals).toBeGreaterThanOrEqual(2);
    expect(ticketFiles(project).length).toBeGreaterThanOrEqual(2);
  }, 600_000);
});

describe('tool approvals inside a workflow, over NATS', () => {
  const prefix = 'wfapprove';
  let server: ScriptedModelServer;
  let system: DistributedSystem;
  let dir: string;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script: workflowScript({ agentsPerPhase: 2 }) });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-workflow-approvals-nats-'));
    system = await startDistributedSystem({
      prefix,
      storePath: join(dir, 'events.db'),
      env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' },
      timeoutMs: 30_000,
    });
  }, 60_000);
  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('workflow resume follows from another process and shows each waiting write while a third approves it', async () => {
    const project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const env = { STAGECRAFT_SUBJECT_PREFIX: prefix, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
    const nats = ['--nats-url', system.nats.url];
    const { workflowId } = await system.requester.request('workflow.start', {
      goal: 'Document the converters',
      projectRoot: project,
      approve: 'writes',
      limits: { maxParallelAgents: 1 },
    });
    const follower = runCli(['workflow', 'resume', workflowId, '--root', project, ...nats], env, 300_000);
    let ended = false;
    void follower.then(() => (ended = true));
    const approved = new Set<string>();
    for (;;) {
      const next = await eventually(
        async () => {
          if (ended) return 'ended' as const;
          const view = await system.requester.request('workflow.get', { workflowId });
          if (view.status !== 'running' && view.status !== 'waiting') return 'ended' as const;
          return waitingAgents(view).find((a) => !approved.has(a.pendingApproval?.approvalId ?? ''));
        },
        'a write waiting for approval, or the end',
        { timeoutMs: 120_000, intervalMs: 200 },
      );
      if (next === 'ended') break;
      approved.add(next.pendingApproval?.approvalId ?? '');
      expect(approved.size).toBeLessThanOrEqual(MAX_APPROVALS);
      const answer = await runCli(['approve', next.runId, ...nats], env, 120_000);
      expect({ code: answer.code, stderr: answer.stderr }).toEqual({ code: 0, stderr: '' });
    }
    const end = await follower;
    expect({ code: end.code, stderr: end.stderr }).toEqual({ code: 0, stderr: '' });
    expect(end.stdout).toMatch(/⏸ ticket-\S+ waits for approval: .+ \(stagecraft approve \S+\)/);
    expect(end.stdout).toContain('✔ completed');
    expect(approved.size).toBeGreaterThanOrEqual(2);
    expect(ticketFiles(project).length).toBeGreaterThanOrEqual(2);
  }, 600_000);
});
