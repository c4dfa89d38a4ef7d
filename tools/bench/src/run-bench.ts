import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventData, REQUEST_SUBJECTS, SERVICE_NAMES, streams, withPrefix } from '@stagecraft/contracts';
import { ConversationOptions } from '@stagecraft/conversation-service';
import { EventStore, RecordedEvent, createSqliteEventStore } from '@stagecraft/event-store';
import { MessageBus, Requester, connectNatsBus, createRequester } from '@stagecraft/messaging';
import { ModelGateway } from '@stagecraft/model-gateway';
import { RecordedRequest, ScriptedReply } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import {
  NatsServerHandle,
  ServiceProcess,
  freePort,
  longToolLoopScript,
  readWriteAgentScript,
  spawnApp,
  startNatsServer,
  waitForHttp,
  writeToolLoopProject,
} from '@stagecraft/testing';
import { runToEnd, scriptedGateway, sixServices, startEmbeddedServices } from './embedded-services';
import { measureChainCost, reportChainCost } from './chain-bench';
import { measureWakeBaseline } from './machine-baseline';
import { ms, percentile } from './stats';

export interface RunBenchOptions {
  runs?: number;
  warmupRuns?: number;
  /** Also measure the six services as six OS processes (needs the apps built). */
  separateProcesses?: boolean;
  /** Measure only the deployments whose name contains this (for profiling one row); empty: all. */
  only?: string;
}

export interface DeploymentResult {
  deployment: string;
  runs: number;
  failed: number;
  stagesPerRun: number;
  /** Per stage: wall time minus the model calls and the tools' own work, as the run's log records them. */
  p50: number;
  p99: number;
  /** Per stage: wall time minus the model calls only (the tools' file work counted as overhead). */
  withToolsP50: number;
  withToolsP99: number;
  wallP50: number;
  runEvents: number;
  runBytes: number;
  allEvents: number;
  allBytes: number;
  /** Prompt bodies a measured run stored (`promptbody-*` streams): none once the store has seen the same prompts. */
  bodyEvents: number;
  bodyBytes: number;
  /** What the first run in the fresh store stored: its run stream and the prompt bodies it was the first to need. */
  firstRun: StoredBytes | null;
  /** Request round trips per measured run, by subject (warm-up excluded); null where they could not be counted. */
  roundTrips: Record<string, number> | null;
}

const TARGET_MS: Record<string, number> = { embedded: 0.3, nats: 2 };
/** The two rows the distribution target compares: the shipped embedded deployment and the fully distributed one. */
const EMBEDDED_OVER_HTTP = 'embedded (inproc, sqlite), scripted model over HTTP';
const SIX_PROCESSES = 'nats, six OS processes';

/** The acceptance agent with no model latency: warmup, read, write, answer, delivery DONE, QA pass. */
const agentReply = (request: RecordedRequest): ScriptedReply => readWriteAgentScript(request) as ScriptedReply;

type Script = (request: RecordedRequest) => ScriptedReply;

/**
 * The same agent without HTTP: what is left of a run is the engine alone. With `waitMs` it also
 * waits on a timer before answering, doing nothing: the wait is model time, and whatever the engine
 * loses after it (a thread that slept comes back slower on this machine) shows as overhead.
 */
function inProcessModel(waitMs = 0, script: Script = agentReply): ModelGateway {
  return {
    model: 'in-process',
    async complete(meta, messages) {
      const started = performance.now();
      if (waitMs > 0) await sleep(waitMs);
      const reply = script({ index: 0, method: 'POST', path: '/chat/completions', headers: {}, body: { messages }, stage: meta.stage });
      const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
        id: c.id ?? `call_${i}`,
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
      }));
      return {
        content: reply.content ?? '',
        toolCalls,
        latencyMs: performance.now() - started,
        finishReason: toolCalls.length ? 'tool_calls' : 'stop',
        model: 'in-process',
      };
    },
  };
}

/** The scripted model behind HTTP in its own process (`scripted-model-process.ts`). */
export async function startModelProcess(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(__dirname, 'scripted-model-process.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    void exited.then(() => reject(new Error('the scripted model process exited before it was listening')));
  });
  return {
    url,
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}

export interface Deployment {
  name: string;
  bus: MessageBus;
  requester: Requester;
  prefix: string;
  store: EventStore;
  close(): Promise<void>;
}

/** Counts requests from now on; `stop` ends the count and says how many went to each subject (prefix removed). */
type RequestCounter = () => { stop(): Map<string, number> };

/**
 * Over NATS every request passes through the server, so the bench's own connection sees each one by
 * subscribing to the request subjects too (a plain subscriber gets a copy next to the queue group that
 * serves it), whichever process sent it. Only request subjects, so the run events stay off this connection.
 */
function countOverNats(bus: MessageBus, prefix: string): RequestCounter {
  return () => {
    const counts = new Map<string, number>();
    const subscriptions = REQUEST_SUBJECTS.map((subject) =>
      bus.subscribe(withPrefix(prefix, subject), () => counts.set(subject, (counts.get(subject) ?? 0) + 1)),
    );
    return {
      stop() {
        subscriptions.forEach((s) => s.unsubscribe());
        return counts;
      },
    };
  };
}

/**
 * In process, requests between services skip the bus's text lane: the requester asks `local.find` for
 * the responder, and only falls back to `request` when no service here serves the subject. Counting
 * both, for as long as the count runs, is every round trip the run made.
 */
function countInProcess(bus: MessageBus, prefix: string): RequestCounter | null {
  const local = bus.local;
  if (!local) return null;
  return () => {
    const counts = new Map<string, number>();
    const tally = (name: string) => {
      const subject = prefix && name.startsWith(`${prefix}.`) ? name.slice(prefix.length + 1) : name;
      counts.set(subject, (counts.get(subject) ?? 0) + 1);
    };
    const { find } = local;
    const request = bus.request.bind(bus);
    local.find = (name) => {
      const responder = find(name);
      if (responder) tally(name);
      return responder;
    };
    bus.request = (name, body, options) => {
      tally(name);
      return request(name, body, options);
    };
    return {
      stop() {
        local.find = find;
        bus.request = request;
        return counts;
      },
    };
  };
}

const countRequests = (d: Deployment): RequestCounter | null =>
  d.bus.kind === 'nats' ? countOverNats(d.bus, d.prefix) : countInProcess(d.bus, d.prefix);

export interface Sample {
  runId: string;
  conversationId: string;
  wallMs: number;
  /** Every model call of the run as the gateway timed it (HTTP client included), the reviewer's too. */
  modelMs: number;
  /** The tools' own work, as the tool service timed it. */
  toolMs: number;
  stages: number;
  ok: boolean;
}

/** Where the run's log says its time went outside the engine. */
function accountedFor(events: RecordedEvent[]): Pick<Sample, 'modelMs' | 'toolMs' | 'stages'> {
  let modelMs = 0;
  let toolMs = 0;
  let stages = 0;
  for (const e of events) {
    const data = e.data as EventData<'ModelResponded'> & EventData<'QAReportIssued'> & EventData<'ToolCallCompleted'>;
    if (e.type === 'ModelResponded') modelMs += data.latencyMs;
    if (e.type === 'QAReportIssued') modelMs += (data.modelCalls ?? []).reduce((n, c) => n + c.latencyMs, 0);
    if (e.type === 'ToolCallCompleted') toolMs += data.durationMs;
    if (e.type === 'StageEntered') stages += 1;
  }
  return { modelMs, toolMs, stages };
}

export async function runOnce(d: Deployment, project: string): Promise<Sample> {
  const runId = `bench-${randomUUID().slice(0, 8)}`;
  const message = 'Write notes about this project';
  const { end, conversationId, wallMs } = await runToEnd(d, {
    runId,
    message,
    userMode: 'agent',
    reasoningEnabled: true,
    projectRoot: project,
  });
  return { runId, conversationId, wallMs, ok: end === 'RunCompleted', ...accountedFor(await d.store.readStream(streams.run(runId))) };
}

const sizeOf = (e: RecordedEvent) => Buffer.byteLength(JSON.stringify(e.data)) + Buffer.byteLength(JSON.stringify(e.metadata));

interface StoredBytes {
  runEvents: number;
  runBytes: number;
  bodyEvents: number;
  bodyBytes: number;
}

/**
 * The prompt bodies each run stored, by run: a body is stored once per store, by the first run that
 * needs it, and names that run as its correlation id.
 */
async function bodiesByRun(store: EventStore): Promise<Map<string, { events: number; bytes: number }>> {
  const byRun = new Map<string, { events: number; bytes: number }>();
  for (const e of await store.readAll()) {
    if (e.type !== 'PromptBodyStored') continue;
    const runId = (e.metadata as { correlationId?: string }).correlationId ?? '';
    const entry = byRun.get(runId) ?? { events: 0, bytes: 0 };
    byRun.set(runId, { events: entry.events + 1, bytes: entry.bytes + sizeOf(e) });
  }
  return byRun;
}

/** One run's own stream and the prompt bodies it added to the store. */
async function storedByRun(store: EventStore, runId: string, bodies: Map<string, { events: number; bytes: number }>): Promise<StoredBytes> {
  const run = await store.readStream(streams.run(runId));
  const added = bodies.get(runId) ?? { events: 0, bytes: 0 };
  return { runEvents: run.length, runBytes: run.reduce((n, e) => n + sizeOf(e), 0), bodyEvents: added.events, bodyBytes: added.bytes };
}

/** Events and bytes (data + metadata JSON) on the run stream, and on every stream the run wrote to. */
async function storedPerRun(
  store: EventStore,
  samples: Sample[],
): Promise<Pick<DeploymentResult, 'runEvents' | 'runBytes' | 'allEvents' | 'allBytes'>> {
  let runEvents = 0;
  let runBytes = 0;
  let allEvents = 0;
  let allBytes = 0;
  for (const s of samples) {
    const run = await store.readStream(streams.run(s.runId));
    const callIds = run.flatMap((e) => (e.type === 'ToolCallRequested' ? [(e.data as { callId: string }).callId] : []));
    const others = [
      ...(await Promise.all(callIds.map((id) => store.readStream(streams.toolCall(id))))).flat(),
      ...(await store.readStream(streams.conversation(s.conversationId))),
    ];
    runEvents += run.length;
    runBytes += run.reduce((n, e) => n + sizeOf(e), 0);
    allEvents += run.length + others.length;
    allBytes += [...run, ...others].reduce((n, e) => n + sizeOf(e), 0);
  }
  const per = (n: number) => Math.round(n / samples.length);
  return { runEvents: per(runEvents), runBytes: per(runBytes), allEvents: per(allEvents), allBytes: per(allBytes) };
}

async function measure(d: Deployment, project: string, options: Required<RunBenchOptions>): Promise<DeploymentResult> {
  const warmups: Sample[] = [];
  for (let i = 0; i < options.warmupRuns; i++) warmups.push(await runOnce(d, project));
  const counting = countRequests(d)?.();
  const samples: Sample[] = [];
  for (let i = 0; i < options.runs; i++) samples.push(await runOnce(d, project));
  // A copy to the bench's subscription may still be on its way when the last run ends.
  await d.bus.flush();
  const counted = counting?.stop();
  const roundTrips = counted ? Object.fromEntries([...counted].map(([subject, n]) => [subject, n / samples.length])) : null;
  const good = samples.filter((s) => s.ok);
  const overhead = good.map((s) => (s.wallMs - s.modelMs - s.toolMs) / s.stages);
  const withTools = good.map((s) => (s.wallMs - s.modelMs) / s.stages);
  // Let the conversation stream's closing turn land before counting what each run stored.
  await sleep(200);
  const bodies = await bodiesByRun(d.store);
  const first = warmups[0] ?? samples[0];
  const perRun = (n: number) => Math.round(n / Math.max(good.length, 1));
  return {
    deployment: d.name,
    runs: samples.length,
    failed: samples.length - good.length,
    stagesPerRun: good[0]?.stages ?? 0,
    p50: percentile(overhead, 50),
    p99: percentile(overhead, 99),
    withToolsP50: percentile(withTools, 50),
    withToolsP99: percentile(withTools, 99),
    wallP50: percentile(
      good.map((s) => s.wallMs),
      50,
    ),
    ...(await storedPerRun(d.store, good)),
    bodyEvents: perRun(good.reduce((n, s) => n + (bodies.get(s.runId)?.events ?? 0), 0)),
    bodyBytes: perRun(good.reduce((n, s) => n + (bodies.get(s.runId)?.bytes ?? 0), 0)),
    firstRun: first ? await storedByRun(d.store, first.runId, bodies) : null,
    roundTrips,
  };
}

export async function embedded(
  dir: string,
  gateway: ModelGateway,
  name: string,
  store: 'sqlite' | 'memory' = 'sqlite',
  limits?: ConversationOptions['limits'],
): Promise<Deployment> {
  const storePath = store === 'memory' ? undefined : join(dir, `${randomUUID()}.db`);
  return { name, ...(await startEmbeddedServices({ gateway, storePath, conversation: { resume: false, limits } })) };
}

async function natsOneProcess(dir: string, nats: NatsServerHandle, gateway: ModelGateway): Promise<Deployment> {
  const host: Host = await startHost({
    definitions: sixServices(gateway, { resume: false }),
    transport: 'nats',
    natsUrl: nats.url,
    store: `sqlite:${join(dir, 'nats.db')}`,
    config: { prefix: 'bench', requestTimeoutMs: 30_000, logLevel: 'silent', projectRoots: [dir] },
  });
  const bus = await connectNatsBus(nats.url, 'bench-client');
  const requester = createRequester(bus, { prefix: 'bench', newId: randomUUID, timeoutMs: 30_000 });
  return {
    name: 'nats, six services in one process',
    bus,
    requester,
    prefix: 'bench',
    store: host.ports.store!,
    async close() {
      await bus.close();
      await host.close();
    },
  };
}

async function natsSixProcesses(dir: string, nats: NatsServerHandle, modelUrl: string): Promise<Deployment> {
  return natsProcesses(dir, nats, modelUrl, { name: SIX_PROCESSES, conversationReplicas: 1 });
}

/** One OS process per service, the conversation service as `conversationReplicas` processes, one sqlite file. */
export async function natsProcesses(
  dir: string,
  nats: NatsServerHandle,
  modelUrl: string,
  options: { name: string; conversationReplicas: number },
): Promise<Deployment & { processes: ServiceProcess[] }> {
  const storePath = join(dir, `processes-${randomUUID().slice(0, 8)}.db`);
  const names = [...SERVICE_NAMES, ...Array.from({ length: options.conversationReplicas - 1 }, () => 'conversation' as const)];
  const ports = await Promise.all(names.map(() => freePort()));
  const services: ServiceProcess[] = names.map((name, i) =>
    spawnApp(name, {
      NATS_URL: nats.url,
      STAGECRAFT_STORE: `sqlite:${storePath}`,
      STAGECRAFT_SUBJECT_PREFIX: 'bench',
      STAGECRAFT_PROJECT_ROOTS: dir,
      STAGECRAFT_HEALTH_PORT: String(ports[i]),
      OPENAI_BASE_URL: modelUrl,
      OPENAI_API_KEY: 'test',
      STAGECRAFT_MODEL: 'scripted',
      STAGECRAFT_MODEL_MAX_RETRIES: '0',
      LOG_LEVEL: 'error',
    }),
  );
  await Promise.all(ports.map((port) => waitForHttp(`http://127.0.0.1:${port}/readyz`, 30_000)));
  const bus = await connectNatsBus(nats.url, 'bench-client');
  const store = createSqliteEventStore({ path: storePath });
  return {
    name: options.name,
    processes: services,
    bus,
    requester: createRequester(bus, { prefix: 'bench', newId: randomUUID, timeoutMs: 30_000 }),
    prefix: 'bench',
    store,
    async close() {
      await bus.close();
      await store.close();
      await Promise.all(services.map((s) => s.stop()));
    },
  };
}

function report(print: (line: string) => void, r: DeploymentResult): void {
  const target = r.deployment.startsWith('embedded') ? TARGET_MS.embedded : TARGET_MS.nats;
  const verdict = (value: number) => (value <= target ? 'meets' : 'misses');
  print(`${r.deployment}: ${r.runs} runs (${r.failed} failed), ${r.stagesPerRun} stages per run, wall p50 ${ms(r.wallP50, 2)} per run`);
  print(
    `  overhead per stage, model calls and tool work excluded: p50 ${ms(r.p50, 3)}  p99 ${ms(r.p99, 3)}  (target <= ${target} ms: p50 ${verdict(r.p50)}, p99 ${verdict(r.p99)})`,
  );
  print(`  overhead per stage, model calls excluded (tool work counted): p50 ${ms(r.withToolsP50, 3)}  p99 ${ms(r.withToolsP99, 3)}`);
  print(
    `  stored per run: run stream ${r.runEvents} events / ${r.runBytes} bytes; with tool-call and conversation streams ${r.allEvents} events / ${r.allBytes} bytes`,
  );
  print(
    `  prompt bodies stored per run: ${r.bodyEvents} events / ${r.bodyBytes} bytes; so a run stores ${r.runBytes + r.bodyBytes} bytes with its run stream`,
  );
  if (r.firstRun)
    print(
      `  the first run in the fresh store: run stream ${r.firstRun.runEvents} events / ${r.firstRun.runBytes} bytes, prompt bodies ${r.firstRun.bodyEvents} events / ${r.firstRun.bodyBytes} bytes`,
    );
  print(`  round trips per run: ${roundTripsLine(r.roundTrips)}`);
}

const perRun = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

/** `18 (policy.decide 7, prompt.assemble 6, …)`: most frequent subject first. */
function roundTripsLine(roundTrips: Record<string, number> | null): string {
  if (!roundTrips) return 'n/a';
  const bySubject = Object.entries(roundTrips).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  const total = bySubject.reduce((n, [, count]) => n + count, 0);
  return `${perRun(total)} (${bySubject.map(([subject, count]) => `${subject} ${perRun(count)}`).join(', ')})`;
}

/** What distribution costs on top of the shipped embedded deployment: the target is at most 2×. */
function distributedRatio(print: (line: string) => void, results: DeploymentResult[]): void {
  const embeddedRow = results.find((r) => r.deployment === EMBEDDED_OVER_HTTP);
  const distributedRow = results.find((r) => r.deployment === SIX_PROCESSES);
  if (!embeddedRow || !distributedRow)
    return print('six-process NATS p50 overhead / embedded SQLite-over-HTTP p50: n/a (a row was not measured)');
  const ratio = distributedRow.p50 / embeddedRow.p50;
  print(
    `six-process NATS p50 overhead / embedded SQLite-over-HTTP p50: ${ms(distributedRow.p50, 3)} / ${ms(embeddedRow.p50, 3)} = ${ratio.toFixed(2)}x` +
      ` (target <= 2x: ${ratio <= 2 ? 'meets' : 'misses'})`,
  );
}

export const PARALLEL_RUNS = 50;
const PARALLEL = `${PARALLEL_RUNS} runs in parallel`;

export interface ParallelResult {
  deployment: string;
  runs: number;
  failed: number;
  /** From the first send to the last run's end. */
  wallMs: number;
  runsPerSecond: number;
  /** Peak resident set size, MiB, of each process that serves the runs (the bench's own, embedded). */
  peakRssMiB: { process: string; mib: number }[];
}

const MIB = 1024 * 1024;

/** The kernel's high-water mark of a process's resident set (`VmHWM`), MiB; null when it cannot be read. */
function peakRssOf(pid: number | undefined): number | null {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmHWM:'));
    return line ? Number(line.replace(/\D+/g, '')) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Many runs at once against the zero-latency scripted model: all `PARALLEL_RUNS` sent together, after
 * a few runs one after another to warm up. Throughput is runs over the wall time of the whole batch.
 * Embedded, the bench's own process hosts the services: its resident set is sampled during the batch.
 * Over NATS, each service process's kernel high-water mark is read after the batch.
 */
export async function measureParallel(d: Deployment, project: string, processes: ServiceProcess[] = []): Promise<ParallelResult> {
  for (let i = 0; i < 5; i++) await runOnce(d, project);
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  const started = performance.now();
  const ends = await Promise.all(
    Array.from({ length: PARALLEL_RUNS }, () =>
      runToEnd(d, {
        runId: `bench-${randomUUID().slice(0, 8)}`,
        message: 'Write notes about this project',
        userMode: 'agent',
        reasoningEnabled: true,
        projectRoot: project,
      }),
    ),
  );
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  const peakRssMiB =
    processes.length === 0
      ? [{ process: 'bench process (six services + client)', mib: Math.max(peak, process.memoryUsage.rss()) / MIB }]
      : processes.map((p) => ({ process: p.name, mib: peakRssOf(p.child.pid) ?? Number.NaN }));
  return {
    deployment: d.name,
    runs: PARALLEL_RUNS,
    failed: ends.filter((e) => e.end !== 'RunCompleted').length,
    wallMs,
    runsPerSecond: (PARALLEL_RUNS * 1000) / wallMs,
    peakRssMiB,
  };
}

export function reportParallel(print: (line: string) => void, r: ParallelResult): void {
  const rss = r.peakRssMiB.map((p) => `${p.process} ${p.mib.toFixed(0)}`).join(', ');
  const total = r.peakRssMiB.reduce((n, p) => n + p.mib, 0);
  print(`${r.deployment}: ${r.runs} runs (${r.failed} failed) in ${ms(r.wallMs, 0)}: ${r.runsPerSecond.toFixed(1)} runs/s`);
  print(`  peak RSS (MiB): ${rss}${r.peakRssMiB.length > 1 ? `; sum ${total.toFixed(0)}` : ''}`);
}

/** The lengths of the long tool loop the bench measures, in rounds, and the size of the file each round reads. */
const LOOP_ROUNDS = [15, 30, 60];
const LOOP_OUTPUT_BYTES = 2_000;
const TOOL_LOOP = 'long tool loop';

/**
 * What a long run stores: `longToolLoopScript`, each round reading a file of about 2 KB, answered in
 * process, embedded with SQLite. A fresh store for each length: its first run stores the prompt bodies
 * it needs, the next (the same run again) finds them stored. Bytes per round that stay the same as
 * the run gets longer are a log that grows with the run's length, not with its square.
 */
async function measureToolLoops(print: (line: string) => void, dir: string): Promise<void> {
  print(
    `${TOOL_LOOP}: one read_file of a ~${LOOP_OUTPUT_BYTES}-byte file per round, model answered in process, embedded (inproc, sqlite); bytes = data + metadata JSON`,
  );
  for (const rounds of LOOP_ROUNDS) {
    const loop = { rounds, outputBytes: LOOP_OUTPUT_BYTES };
    const project = join(dir, `loop-${rounds}`);
    writeToolLoopProject(project, loop);
    const script = longToolLoopScript(loop);
    const gateway = inProcessModel(0, (request) => script(request) as ScriptedReply);
    const d = await embedded(dir, gateway, `${TOOL_LOOP}, ${rounds} rounds`, 'sqlite', { maxToolIterations: rounds });
    try {
      const runs = [
        ['first run', await runOnce(d, project)],
        ['next run', await runOnce(d, project)],
      ] as const;
      // The conversation's turn lands after RunCompleted; nothing here counts it, but the store should be still.
      await sleep(200);
      const bodies = await bodiesByRun(d.store);
      for (const [label, sample] of runs) {
        const s = await storedByRun(d.store, sample.runId, bodies);
        const total = s.runBytes + s.bodyBytes;
        print(
          `  ${String(rounds).padStart(2)} rounds, ${label}${sample.ok ? '' : ' (FAILED)'}: run stream ${s.runEvents} events / ${s.runBytes} bytes` +
            ` + prompt bodies ${s.bodyEvents} / ${s.bodyBytes} bytes = ${total} bytes, ${Math.round(total / rounds)} per round`,
        );
      }
    } finally {
      await d.close();
    }
  }
}

/**
 * Per-stage orchestration overhead of whole agent runs against a zero-latency scripted model: each
 * run's wall time (send to RunCompleted) minus what its log says went to the model (every gateway
 * call, HTTP client included, the reviewer's too) and to the tools' own work, divided by the run's
 * stages. Embedded, over NATS with all services in one process, and as six processes.
 */
const CHAIN = 'hash chain';

/** A store filled by `runs` agent runs, then what chaining its events costs (see chain-bench.ts). */
async function measureChain(
  print: (line: string) => void,
  dir: string,
  project: string,
  gateway: ModelGateway,
  runs: number,
): Promise<void> {
  const storePath = join(dir, 'chain.db');
  const filled: Deployment = { name: CHAIN, ...(await startEmbeddedServices({ gateway, storePath, conversation: { resume: false } })) };
  try {
    for (let i = 0; i < runs; i += 1) await runOnce(filled, project);
  } finally {
    await filled.close();
  }
  reportChainCost(print, await measureChainCost(storePath, join(dir, 'chain-append')));
}

export async function runRunBench(print: (line: string) => void, options: RunBenchOptions = {}): Promise<DeploymentResult[]> {
  const settings: Required<RunBenchOptions> = { runs: 200, warmupRuns: 20, separateProcesses: true, only: '', ...options };
  const server = await startModelProcess();
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-run-bench-'));
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Sample\nA tiny project.\n');
  const gateway = scriptedGateway(server.url);
  const results: DeploymentResult[] = [];
  let nats: NatsServerHandle | undefined;
  const measureOn = async (open: () => Promise<Deployment>) => {
    const d = await open();
    if (settings.only && !d.name.includes(settings.only)) return d.close();
    try {
      const result = await measure(d, project, settings);
      results.push(result);
      report(print, result);
    } finally {
      await d.close();
    }
  };
  const measureParallelOn = async (open: () => Promise<Deployment & { processes?: ServiceProcess[] }>) => {
    const d = await open();
    if (settings.only && !d.name.includes(settings.only)) return d.close();
    try {
      reportParallel(print, await measureParallel(d, project, d.processes));
    } finally {
      await d.close();
    }
  };
  try {
    print(`run bench: ${settings.runs} agent runs per deployment after ${settings.warmupRuns} warm-up runs, zero-latency scripted model`);
    const wake = await measureWakeBaseline();
    print(
      `machine baseline: a fixed task takes ${wake.busyUs.toFixed(1)} µs p50 straight after another and ${wake.afterWaitUs.toFixed(1)} µs straight after a 2 ms wait (x${wake.ratio.toFixed(2)})`,
    );
    await measureOn(() => embedded(dir, gateway, EMBEDDED_OVER_HTTP));
    await measureOn(() =>
      embedded(dir, inProcessModel(), 'embedded (inproc, sqlite), model answered in process (diagnostic: no HTTP at all)'),
    );
    await measureOn(() =>
      embedded(
        dir,
        inProcessModel(),
        'embedded (inproc, memory store), model answered in process (diagnostic: no HTTP, no disk)',
        'memory',
      ),
    );
    await measureOn(() =>
      embedded(
        dir,
        inProcessModel(2),
        'embedded (inproc, memory store), model answers in process after waiting 2 ms (diagnostic: the cost of waking up)',
        'memory',
      ),
    );
    nats = await startNatsServer();
    const url = nats;
    await measureOn(() => natsOneProcess(dir, url, gateway));
    if (settings.separateProcesses) await measureOn(() => natsSixProcesses(dir, url, server.url));
    distributedRatio(print, results);
    await measureParallelOn(() => embedded(dir, gateway, `${PARALLEL}: embedded (inproc, sqlite), scripted model over HTTP`));
    if (settings.separateProcesses)
      await measureParallelOn(() =>
        natsProcesses(dir, url, server.url, {
          name: `${PARALLEL}: nats, seven OS processes (two conversation replicas), scripted model over HTTP`,
          conversationReplicas: 2,
        }),
      );
    if (!settings.only || TOOL_LOOP.includes(settings.only)) await measureToolLoops(print, dir);
    if (!settings.only || CHAIN.includes(settings.only)) await measureChain(print, dir, project, gateway, settings.runs);
  } finally {
    await nats?.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
