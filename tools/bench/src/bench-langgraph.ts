import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NatsServerHandle, startNatsServer } from '@stagecraft/testing';
import { scriptedGateway } from './embedded-services';
import { LANGGRAPH_CHECKPOINTS } from './langgraph-loop';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  Deployment,
  PARALLEL_RUNS,
  embedded,
  measureParallel,
  natsProcesses,
  reportParallel,
  runOnce,
  startModelProcess,
} from './run-bench';
import { ms, percentile } from './stats';

/**
 * `npm run bench:langgraph [blocks] [runs per block] [--no-replicas]`: Stagecraft embedded (sqlite, the
 * scripted model over HTTP) against the same loop as a LangGraph.js graph with SqliteSaver (durability
 * `sync`), in one session, in alternating blocks so that the machine's drift falls on both alike. Per
 * stage: a run's wall time minus its model calls (the openai client included, for both) and its tools'
 * own work, over its model-calling stages. Then 50 runs at once for each, and over NATS replicas. Each
 * system runs in a process of its own (the anchor in `langgraph-process.ts`).
 */
const print = (line: string) => process.stdout.write(`${line}\n`);
const MESSAGE = 'Write notes about this project';

interface Row {
  overhead: number[];
  wall: number[];
  failed: number;
  stages: number;
}

const emptyRow = (): Row => ({ overhead: [], wall: [], failed: 0, stages: 0 });

async function stagecraftBlock(d: Deployment, project: string, runs: number, row: Row): Promise<void> {
  for (let i = 0; i < runs; i++) {
    const s = await runOnce(d, project);
    if (!s.ok) row.failed += 1;
    else {
      row.overhead.push((s.wallMs - s.modelMs - s.toolMs) / s.stages);
      row.wall.push(s.wallMs);
      row.stages = s.stages;
    }
  }
}

/** The anchor's process (`langgraph-process.ts`): one command, one JSON line back. */
interface LangGraphProcess {
  ask<T>(command: string): Promise<T>;
  stop(): Promise<void>;
}

function startLangGraph(baseURL: string, project: string, checkpoints: string): LangGraphProcess {
  const child = spawn(process.execPath, [join(__dirname, 'langgraph-process.js'), baseURL, project, checkpoints], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async ask<T>(command: string) {
      child.stdin.write(`${command}\n`);
      const next = await lines.next();
      if (next.done) throw new Error(`the LangGraph process ended before answering '${command}'`);
      return JSON.parse(next.value) as T;
    },
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}

interface LoopSample {
  wallMs: number;
  modelMs: number;
  toolMs: number;
  stages: number;
  ok: boolean;
}

async function langGraphBlock(langGraph: LangGraphProcess, runs: number, row: Row): Promise<void> {
  const { samples } = await langGraph.ask<{ samples: LoopSample[] }>(`block ${runs}`);
  for (const r of samples) {
    if (!r.ok) row.failed += 1;
    else {
      row.overhead.push((r.wallMs - r.modelMs - r.toolMs) / r.stages);
      row.wall.push(r.wallMs);
      row.stages = r.stages;
    }
  }
}

function reportRow(name: string, row: Row): void {
  print(
    `${name}: ${row.overhead.length} runs (${row.failed} failed), ${row.stages} stages per run, wall p50 ${ms(percentile(row.wall, 50), 2)}; ` +
      `overhead per stage p50 ${ms(percentile(row.overhead, 50), 3)}, p99 ${ms(percentile(row.overhead, 99), 3)}`,
  );
}

async function langGraphParallel(
  langGraph: LangGraphProcess,
): Promise<{ runsPerSecond: number; failed: number; wallMs: number; peakRssMiB: number }> {
  await langGraph.ask('block 5');
  const r = await langGraph.ask<{ wallMs: number; failed: number; peakRssMiB: number }>(`parallel ${PARALLEL_RUNS}`);
  return { ...r, runsPerSecond: (PARALLEL_RUNS * 1000) / r.wallMs };
}

async function main(): Promise<void> {
  const numbers = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const blocks = Number(numbers[0] ?? 5);
  const perBlock = Number(numbers[1] ?? 40);
  if (!Number.isInteger(blocks) || blocks < 1 || !Number.isInteger(perBlock) || perBlock < 1)
    throw new Error('usage: bench-langgraph [blocks >= 1] [runs per block >= 1] [--no-replicas]');
  const replicas = !process.argv.includes('--no-replicas');
  print(`node ${process.version}, ${new Date().toISOString()}`);
  print(`Stagecraft against LangGraph.js: ${blocks} alternating blocks of ${perBlock} runs each after 20 warm-up runs each`);
  const server = await startModelProcess();
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-langgraph-bench-'));
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Sample\nA tiny project.\n');
  let nats: NatsServerHandle | undefined;
  try {
    const stagecraft = await embedded(dir, scriptedGateway(server.url), 'embedded (inproc, sqlite), scripted model over HTTP');
    const loop = startLangGraph(server.url, project, LANGGRAPH_CHECKPOINTS(dir));
    const ours = emptyRow();
    const theirs = emptyRow();
    try {
      await stagecraftBlock(stagecraft, project, 20, emptyRow());
      await langGraphBlock(loop, 20, emptyRow());
      for (let b = 0; b < blocks; b++) {
        await stagecraftBlock(stagecraft, project, perBlock, ours);
        await langGraphBlock(loop, perBlock, theirs);
      }
      reportRow('Stagecraft embedded (inproc, sqlite), scripted model over HTTP', ours);
      reportRow('LangGraph.js StateGraph, SqliteSaver durability sync, openai client over HTTP', theirs);
      const ratio = percentile(ours.overhead, 50) / percentile(theirs.overhead, 50);
      print(
        `per-stage overhead, Stagecraft embedded / LangGraph: ${ratio.toFixed(2)}x (target <= 0.5x: ${ratio <= 0.5 ? 'meets' : 'misses'})`,
      );
    } finally {
      await stagecraft.close();
    }
    const parallel = await embedded(dir, scriptedGateway(server.url), `${PARALLEL_RUNS} runs in parallel: embedded (inproc, sqlite)`);
    const ourParallel = await measureParallel(parallel, project).finally(() => parallel.close());
    reportParallel(print, ourParallel);
    const theirParallel = await langGraphParallel(loop);
    print(
      `${PARALLEL_RUNS} runs in parallel: LangGraph.js: ${PARALLEL_RUNS} runs (${theirParallel.failed} failed) in ${ms(theirParallel.wallMs, 0)}: ${theirParallel.runsPerSecond.toFixed(1)} runs/s; peak RSS ${theirParallel.peakRssMiB.toFixed(0)} MiB`,
    );
    print(
      `parallel runs/s, Stagecraft embedded / LangGraph: ${(ourParallel.runsPerSecond / theirParallel.runsPerSecond).toFixed(2)}x (target >= 1x)`,
    );
    if (replicas) {
      nats = await startNatsServer();
      const d = await natsProcesses(dir, nats, server.url, {
        name: `${PARALLEL_RUNS} runs in parallel: nats, seven OS processes (two conversation replicas)`,
        conversationReplicas: 2,
      });
      try {
        const overReplicas = await measureParallel(d, project, d.processes);
        reportParallel(print, overReplicas);
        print(
          `parallel runs/s, Stagecraft over replicas / LangGraph: ${(overReplicas.runsPerSecond / theirParallel.runsPerSecond).toFixed(2)}x (target >= 0.75x)`,
        );
      } finally {
        await d.close();
      }
    }
    await loop.stop();
  } finally {
    await nats?.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
