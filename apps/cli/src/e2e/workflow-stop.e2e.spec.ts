import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedModelServer, startScriptedModelServer, workflowScript } from '@stagecraft/scripted-model';
import { REPO_ROOT, runCli } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * A collector that finds the goal cannot be reached (`STOP`) ends the workflow stopped, with its reason:
 * `workflow start` says so and exits 1, `workflow show` tells the same, on both deployments.
 */
const REASON = 'the project has no converters to document';
const script = () =>
  workflowScript({
    agentsPerPhase: 2,
    decide: ({ agentType }) => (agentType === 'discovery-collector' ? { decisionType: 'STOP', rationale: REASON } : undefined),
  });

describe.each(['embedded', 'distributed'] as const)('a workflow its collector stops (%s)', (deployment) => {
  const prefix = 'wfstop';
  let server: ScriptedModelServer;
  let system: DistributedSystem | undefined;
  let dir: string;
  let connection: string[];
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script: script() });
    dir = mkdtempSync(join(tmpdir(), `stagecraft-workflow-stop-${deployment}-`));
    const model = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' };
    if (deployment === 'distributed') {
      system = await startDistributedSystem({ prefix, storePath: join(dir, 'events.db'), env: model, timeoutMs: 30_000 });
      connection = ['--nats-url', system.nats.url];
      env = { STAGECRAFT_SUBJECT_PREFIX: prefix, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
    } else {
      connection = ['--store', `sqlite:${join(dir, 'events.db')}`];
      env = { ...model, NATS_URL: '' };
    }
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ends stopped with the reason, is shown stopped, and exits 1', async () => {
    const project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const run = await runCli(['workflow', 'start', 'Document the converters', '--root', project, ...connection], env, 180_000);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: '' });
    expect(run.stdout).toContain('discovery (round 1): 0 running, 4 done, 0 failed → STOP');
    expect(run.stdout).toContain(`■ stopped after discovery: the discovery-collector found the goal cannot be reached: ${REASON}`);
    expect(run.stdout).not.toContain('✔ completed');
    expect(run.stdout).not.toContain('planning (round 1)');
    const workflowId = /^workflow (\S+)$/m.exec(run.stdout)?.[1] ?? '';
    const shown = await runCli(['workflow', 'show', workflowId, '--json', ...connection], env, 60_000);
    expect(shown.code).toBe(0);
    const view = JSON.parse(shown.stdout);
    expect([view.status, view.summary, view.failure]).toEqual(['stopped', null, null]);
    expect(view.halt).toEqual({ phase: 'discovery', agentId: 'discovery-collector', reason: REASON });
    // Each agent's run enters its stages under the context id its dispatch gave it, not a scheme of its own.
    const agents = (view.phases as { agents: { runId: string; contextId: string }[] }[]).flatMap((p) => p.agents);
    expect(agents).toHaveLength(4);
    for (const agent of agents) {
      const events = await runCli(['runs', 'show', agent.runId, '--json', '--store', `sqlite:${join(dir, 'events.db')}`], env, 60_000);
      const stages = events.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { type: string; data: { contextId?: string } })
        .filter((e) => e.type === 'StageEntered');
      expect(stages.length).toBeGreaterThan(0);
      expect(new Set(stages.map((e) => e.data.contextId))).toEqual(new Set([agent.contextId]));
    }
  }, 300_000);
});
