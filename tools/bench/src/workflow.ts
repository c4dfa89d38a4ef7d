import 'reflect-metadata';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { streams } from '@stagecraft/contracts';
import { RecordedEvent } from '@stagecraft/event-store';
import { startScriptedModelServer, workflowScript } from '@stagecraft/scripted-model';
import { REPO_ROOT } from '@stagecraft/testing';
import { EmbeddedServices, scriptedGateway, startEmbeddedServices } from './embedded-services';

/**
 * `npm run bench:workflow [latencyMs] [N,N,…]`: the wall time of a three-phase workflow (embedded,
 * sqlite in a temporary folder, the scripted workflow agent over HTTP answering each request after
 * `latencyMs`) with N agents per phase, run N at a time and one at a time; then, from the workflow's
 * own log, where the time went.
 */

const PHASES = ['discovery', 'planning', 'tickets'] as const;
const END_TYPES = new Set(['WorkflowCompleted', 'WorkflowFailed']);

interface RunSpan {
  runId: string;
  phase: string;
  role: string;
  startedAt: number;
  endedAt: number;
  modelCalls: number;
  modelMs: number;
}

interface Measured {
  wallMs: number;
  runs: RunSpan[];
}

/** Each agent run of the workflow: its role, its span (from `RunStarted` to its end) and its model calls. */
function runSpans(all: RecordedEvent[], workflowId: string): RunSpan[] {
  const dispatched = new Map<string, { phase: string; role: string }>();
  for (const e of all) {
    if (e.streamId !== streams.workflow(workflowId) || e.type !== 'AgentDispatched') continue;
    const data = e.data as { runId: string; phase: string; role: string };
    dispatched.set(data.runId, { phase: data.phase, role: data.role });
  }
  const at = (e: RecordedEvent) => Date.parse((e.metadata as { occurredAt: string }).occurredAt);
  return [...dispatched.entries()].map(([runId, { phase, role }]) => {
    const run = all.filter((e) => e.streamId === streams.run(runId));
    const end = run.find((e) => e.type === 'RunCompleted' || e.type === 'RunFailed');
    const responses = run.filter((e) => e.type === 'ModelResponded').map((e) => (e.data as { latencyMs: number }).latencyMs);
    return {
      runId,
      phase,
      role,
      startedAt: at(run[0]),
      endedAt: end ? at(end) : at(run[run.length - 1]),
      modelCalls: responses.length,
      modelMs: responses.reduce((a, b) => a + b, 0),
    };
  });
}

/** Resolves when the workflow's stream gets its last event, read live from the store. */
async function endOf(services: EmbeddedServices, workflowId: string): Promise<string> {
  const subscription = services.store.subscribeToAll({
    fromPosition: 'start',
    filter: (e) => e.streamId === streams.workflow(workflowId) && END_TYPES.has(e.type),
  });
  try {
    for await (const event of subscription) return event.type;
    throw new Error(`the subscription ended before workflow ${workflowId} did`);
  } finally {
    await subscription.close();
  }
}

async function runWorkflow(
  services: EmbeddedServices,
  dir: string,
  workflowId: string,
  agents: number,
  parallel: number,
): Promise<Measured> {
  const root = join(dir, workflowId);
  cpSync(join(REPO_ROOT, 'examples', 'sample-project'), root, { recursive: true });
  const ended = endOf(services, workflowId);
  const started = performance.now();
  await services.requester.request('workflow.start', {
    workflowId,
    goal: 'Add a Kelvin conversion to the temperature tools',
    projectRoot: root,
    limits: { maxParallelAgents: parallel, maxAgentsPerPhase: Math.max(8, agents) },
  });
  const end = await ended;
  const wallMs = performance.now() - started;
  if (end !== 'WorkflowCompleted') {
    const view = await services.requester.request('workflow.get', { workflowId });
    throw new Error(`workflow ${workflowId} ended with ${end}: ${JSON.stringify(view.failure)}`);
  }
  return { wallMs, runs: runSpans(await services.store.readAll(), workflowId) };
}

/** One workflow on fresh services (its own store and model server), so no run sees another's log. */
async function measure(latencyMs: number, agents: number, parallel: number, name: string): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-bench-workflow-'));
  const server = await startScriptedModelServer({ script: workflowScript({ agentsPerPhase: agents, latencyMs }) });
  const services = await startEmbeddedServices({
    gateway: scriptedGateway(server.url),
    storePath: join(dir, 'events.db'),
    requestTimeoutMs: 60_000,
    conversation: { compaction: 'off' },
  });
  try {
    return await runWorkflow(services, dir, name, agents, parallel);
  } finally {
    await services.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const span = (runs: RunSpan[]) =>
  runs.length === 0 ? 0 : Math.max(...runs.map((r) => r.endedAt)) - Math.min(...runs.map((r) => r.startedAt));
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const fixed = (n: number) => n.toFixed(0).padStart(7);

/**
 * Where a workflow's wall time went, from its log: the orchestrators and collectors (one after another
 * in either mode), the work agents of each phase (from the first one's start to the last one's end), and
 * the rest: the workflow itself between runs (dispatch, merge, deciding) and the request and end wait.
 */
function breakdown(m: Measured) {
  const serial = sum(m.runs.filter((r) => r.role !== 'agent').map((r) => r.endedAt - r.startedAt));
  const agents = sum(PHASES.map((phase) => span(m.runs.filter((r) => r.phase === phase && r.role === 'agent'))));
  const work = m.runs.filter((r) => r.role === 'agent');
  return {
    serial,
    agents,
    between: m.wallMs - serial - agents,
    agentRunMs: sum(work.map((r) => r.endedAt - r.startedAt)) / Math.max(1, work.length),
    agentModelMs: sum(work.map((r) => r.modelMs)) / Math.max(1, work.length),
    callsPerRun: sum(m.runs.map((r) => r.modelCalls)) / Math.max(1, m.runs.length),
  };
}

async function main(): Promise<void> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const latencyMs = process.argv[2] === undefined ? 50 : Number(process.argv[2]);
  const sizes = (process.argv[3] ?? '2,4,8').split(',').map(Number);
  if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new Error(`latencyMs must be a number ≥ 0, got ${process.argv[2]}`);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 16))
    throw new Error(`N must be integers from 1 to 16, got ${process.argv[3]}`);
  print(`node ${process.version}, ${new Date().toISOString()}; scripted model latency ${latencyMs} ms per reply`);

  // One workflow first, not counted: the modules, the JIT and sqlite's first files warm up.
  await measure(latencyMs, 2, 2, 'warm-up');

  const rows: { n: number; parallel: Measured; sequential: Measured }[] = [];
  for (const n of sizes) {
    const parallel = await measure(latencyMs, n, n, `parallel-${n}`);
    const sequential = await measure(latencyMs, n, 1, `sequential-${n}`);
    rows.push({ n, parallel, sequential });
  }

  print('');
  print('      N  parallel ms  sequential ms  speed-up  bound (Amdahl)');
  for (const { n, parallel, sequential } of rows) {
    // Only the work agents run side by side; orchestrators, collectors and the workflow's own steps stay serial.
    const s = breakdown(sequential);
    const bound = sequential.wallMs / (sequential.wallMs - s.agents + s.agents / n);
    print(
      `${String(n).padStart(7)}  ${fixed(parallel.wallMs).padStart(11)}  ${fixed(sequential.wallMs).padStart(13)}  ${(sequential.wallMs / parallel.wallMs).toFixed(2).padStart(7)}x  ${bound.toFixed(2).padStart(13)}x`,
    );
  }

  print('');
  print('Where the time went (ms; from the workflow log):');
  print('      N  mode        wall  orch+coll  work agents  between runs  agent run  agent model  model calls/run');
  for (const { n, parallel, sequential } of rows) {
    for (const [mode, m] of [
      ['parallel', parallel],
      ['sequential', sequential],
    ] as const) {
      const b = breakdown(m);
      print(
        `${String(n).padStart(7)}  ${mode.padEnd(10)} ${fixed(m.wallMs)}  ${fixed(b.serial).padStart(9)}  ${fixed(b.agents).padStart(11)}  ${fixed(b.between).padStart(12)}  ${fixed(b.agentRunMs).padStart(9)}  ${fixed(b.agentModelMs).padStart(11)}  ${b.callsPerRun.toFixed(1).padStart(15)}`,
      );
    }
  }
  print('');
  for (const { n, parallel, sequential } of rows) print(shortfall(n, parallel, sequential));
}

/** Why N agents at a time are not N times faster, in one line per N. */
function shortfall(n: number, parallel: Measured, sequential: Measured): string {
  const p = breakdown(parallel);
  const s = breakdown(sequential);
  const pct = (part: number) => `${((100 * part) / parallel.wallMs).toFixed(0)}%`;
  // Work agents at their sequential pace, all N side by side: one agent's time per phase.
  const ideal = PHASES.length * s.agentRunMs;
  return (
    `N=${n}: speed-up ${(sequential.wallMs / parallel.wallMs).toFixed(2)}x of ${n}x. Of the parallel ${parallel.wallMs.toFixed(0)} ms, ` +
    `orchestrators and collectors (serial in both modes) take ${p.serial.toFixed(0)} ms (${pct(p.serial)}); ` +
    `work agents ${p.agents.toFixed(0)} ms (${pct(p.agents)}) where one agent per phase at the sequential pace would take ${ideal.toFixed(0)} ms ` +
    `(an agent run takes ${p.agentRunMs.toFixed(0)} ms side by side vs ${s.agentRunMs.toFixed(0)} ms alone, its model calls ${p.agentModelMs.toFixed(0)} vs ${s.agentModelMs.toFixed(0)} ms); ` +
    `the workflow between runs ${p.between.toFixed(0)} ms (${pct(p.between)}).`
  );
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
