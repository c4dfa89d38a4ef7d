import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SERVICE_NAMES, StagecraftEvent, streams } from '@stagecraft/contracts';
import { conversationServiceWith } from '@stagecraft/conversation-service';
import { EventStore, RecordedEvent, createSqliteEventStore } from '@stagecraft/event-store';
import { memoryService } from '@stagecraft/memory-service';
import { MessageBus, Requester, connectNatsBus, createRequester, subscribeRunEvents } from '@stagecraft/messaging';
import { ModelGateway, createOpenAiGateway } from '@stagecraft/model-gateway';
import { policyService } from '@stagecraft/policy-service';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';
import { qaServiceWith } from '@stagecraft/qa-service';
import { RecordedRequest, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import { NatsServerHandle, ServiceProcess, freePort, readWriteAgentScript, spawnApp, startNatsServer, waitForHttp } from '@stagecraft/testing';
import { toolExecutionService } from '@stagecraft/tool-execution-service';
import pino from 'pino';
import { ms, percentile } from './stats';

export interface RunBenchOptions {
  runs?: number;
  warmupRuns?: number;
  /** Also measure the six services as six OS processes (needs the apps built). */
  separateProcesses?: boolean;
}

export interface DeploymentResult {
  deployment: string;
  /** False for the diagnostic run whose model answers in process: no server, so only the engine figure applies. */
  modelOverHttp: boolean;
  runs: number;
  failed: number;
  stagesPerRun: number;
  /** Per stage: wall time minus model time as the scripted server saw it (arrival to response end). */
  p50: number;
  p99: number;
  /** Per stage: wall time minus every gateway call as the engine saw it (HTTP client included); absent when the gateway is in another process. */
  engineP50?: number;
  engineP99?: number;
  wallP50: number;
  runEvents: number;
  runBytes: number;
  allEvents: number;
  allBytes: number;
}

const TARGET_MS: Record<string, number> = { embedded: 0.3, nats: 2 };

/** Adds `ms` to the run's total. */
const add = (totals: Map<string, number>, runId: string, spent: number) => totals.set(runId, (totals.get(runId) ?? 0) + spent);

/** The acceptance agent with no model latency: warmup, read, write, answer, delivery DONE, QA pass. */
const agentReply = (request: RecordedRequest): ScriptedReply => readWriteAgentScript(request) as ScriptedReply;

/** Times every call through the gateway, per run. */
function timedGateway(inner: ModelGateway, spent: Map<string, number>): ModelGateway {
  return {
    model: inner.model,
    async complete(meta, messages, tools, options) {
      const started = performance.now();
      try {
        return await inner.complete(meta, messages, tools, options);
      } finally {
        add(spent, meta.runId, performance.now() - started);
      }
    },
  };
}

/** The same agent without HTTP: what is left of a run is the engine alone. */
function inProcessModel(): ModelGateway {
  return {
    model: 'in-process',
    async complete(meta, messages) {
      const reply = agentReply({ index: 0, method: 'POST', path: '/chat/completions', headers: {}, body: { messages }, stage: meta.stage });
      const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `call_${i}`, name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) }));
      return { content: reply.content ?? '', toolCalls, latencyMs: 0, finishReason: toolCalls.length ? 'tool_calls' : 'stop', model: 'in-process' };
    },
  };
}

interface Deployment {
  name: string;
  modelOverHttp: boolean;
  bus: MessageBus;
  requester: Requester;
  prefix: string;
  store: EventStore;
  /** Gateway time per run, when the gateway runs in this process. */
  engineModelMs?: Map<string, number>;
  close(): Promise<void>;
}

interface Sample {
  runId: string;
  conversationId: string;
  wallMs: number;
  stages: number;
  ok: boolean;
}

async function runOnce(d: Deployment, project: string): Promise<Sample> {
  const runId = `bench-${randomUUID().slice(0, 8)}`;
  let stop: () => void = () => undefined;
  const ended = new Promise<StagecraftEvent>((resolve) => {
    const subscription = subscribeRunEvents(d.bus, d.prefix, runId, (e) => {
      if (e.type === 'RunCompleted' || e.type === 'RunFailed') resolve(e);
    });
    stop = () => subscription.unsubscribe();
  });
  await d.bus.flush();
  const started = performance.now();
  const { conversationId } = await d.requester.request('conversation.send', { runId, message: 'Write notes about this project', userMode: 'agent', reasoningEnabled: true, projectRoot: project });
  const end = await ended;
  const wallMs = performance.now() - started;
  stop();
  const stored = await d.store.readStream(streams.run(runId));
  return { runId, conversationId, wallMs, stages: stored.filter((e) => e.type === 'StageEntered').length, ok: end.type === 'RunCompleted' };
}

const sizeOf = (e: RecordedEvent) => Buffer.byteLength(JSON.stringify(e.data)) + Buffer.byteLength(JSON.stringify(e.metadata));

/** Events and bytes (data + metadata JSON) on the run stream, and on every stream the run wrote to. */
async function storedPerRun(store: EventStore, samples: Sample[]): Promise<Pick<DeploymentResult, 'runEvents' | 'runBytes' | 'allEvents' | 'allBytes'>> {
  let runEvents = 0;
  let runBytes = 0;
  let allEvents = 0;
  let allBytes = 0;
  for (const s of samples) {
    const run = await store.readStream(streams.run(s.runId));
    const callIds = run.flatMap((e) => (e.type === 'ToolCallRequested' ? [(e.data as { callId: string }).callId] : []));
    const others = [...(await Promise.all(callIds.map((id) => store.readStream(streams.toolCall(id))))).flat(), ...(await store.readStream(streams.conversation(s.conversationId)))];
    runEvents += run.length;
    runBytes += run.reduce((n, e) => n + sizeOf(e), 0);
    allEvents += run.length + others.length;
    allBytes += [...run, ...others].reduce((n, e) => n + sizeOf(e), 0);
  }
  const per = (n: number) => Math.round(n / samples.length);
  return { runEvents: per(runEvents), runBytes: per(runBytes), allEvents: per(allEvents), allBytes: per(allBytes) };
}

async function measure(d: Deployment, project: string, serverModelMs: Map<string, number>, options: Required<RunBenchOptions>): Promise<DeploymentResult> {
  for (let i = 0; i < options.warmupRuns; i++) await runOnce(d, project);
  const samples: Sample[] = [];
  for (let i = 0; i < options.runs; i++) samples.push(await runOnce(d, project));
  const good = samples.filter((s) => s.ok);
  const perStage = (model: Map<string, number>) => good.map((s) => (s.wallMs - (model.get(s.runId) ?? 0)) / s.stages);
  const server = perStage(serverModelMs);
  const engine = d.engineModelMs ? perStage(d.engineModelMs) : undefined;
  // Let the conversation stream's closing turn land before counting what each run stored.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    deployment: d.name,
    modelOverHttp: d.modelOverHttp,
    runs: samples.length,
    failed: samples.length - good.length,
    stagesPerRun: good[0]?.stages ?? 0,
    p50: percentile(server, 50),
    p99: percentile(server, 99),
    engineP50: engine && percentile(engine, 50),
    engineP99: engine && percentile(engine, 99),
    wallP50: percentile(good.map((s) => s.wallMs), 50),
    ...(await storedPerRun(d.store, good)),
  };
}

const silent = { prefix: 'bench', requestTimeoutMs: 30_000, logLevel: 'silent' as const };

function sixServices(gateway: ModelGateway) {
  return [conversationServiceWith({ gateway, resume: false }), policyService, promptAssemblyService, toolExecutionService, qaServiceWith({ gateway }), memoryService];
}

async function embedded(dir: string, gateway: ModelGateway, engineModelMs: Map<string, number>, modelOverHttp = true): Promise<Deployment> {
  const host = await startHost({ definitions: sixServices(gateway), transport: 'inproc', store: `sqlite:${join(dir, `${randomUUID()}.db`)}`, config: silent });
  const name = modelOverHttp ? 'embedded (inproc, sqlite)' : 'embedded, model answered in process without HTTP (diagnostic)';
  return { name, modelOverHttp, bus: host.ports.bus, requester: host.ports.requester, prefix: 'bench', store: host.ports.store!, engineModelMs, close: () => host.close() };
}

async function natsOneProcess(dir: string, nats: NatsServerHandle, gateway: ModelGateway, engineModelMs: Map<string, number>): Promise<Deployment> {
  const host: Host = await startHost({ definitions: sixServices(gateway), transport: 'nats', natsUrl: nats.url, store: `sqlite:${join(dir, 'nats.db')}`, config: silent });
  const bus = await connectNatsBus(nats.url, 'bench-client');
  const requester = createRequester(bus, { prefix: 'bench', newId: randomUUID, timeoutMs: 30_000 });
  return {
    name: 'nats, six services in one process',
    modelOverHttp: true,
    bus,
    requester,
    prefix: 'bench',
    store: host.ports.store!,
    engineModelMs,
    async close() {
      await bus.close();
      await host.close();
    },
  };
}

async function natsSixProcesses(dir: string, nats: NatsServerHandle, modelUrl: string): Promise<Deployment> {
  const storePath = join(dir, 'processes.db');
  const ports = await Promise.all(SERVICE_NAMES.map(() => freePort()));
  const services: ServiceProcess[] = SERVICE_NAMES.map((name, i) =>
    spawnApp(name, {
      NATS_URL: nats.url,
      STAGECRAFT_STORE: `sqlite:${storePath}`,
      STAGECRAFT_SUBJECT_PREFIX: 'bench',
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
    name: 'nats, six OS processes',
    modelOverHttp: true,
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
  const against = (p50: number, p99: number) => `(target <= ${target} ms: ${p50 <= target && p99 <= target ? 'meets' : 'misses'})`;
  print(`${r.deployment}: ${r.runs} runs (${r.failed} failed), ${r.stagesPerRun} stages per run, wall p50 ${ms(r.wallP50, 2)} per run`);
  if (r.modelOverHttp) print(`  overhead per stage, server-side model time excluded: p50 ${ms(r.p50, 3)}  p99 ${ms(r.p99, 3)}  ${against(r.p50, r.p99)}`);
  if (r.engineP50 !== undefined && r.engineP99 !== undefined) {
    const what = r.modelOverHttp ? 'whole gateway calls excluded (HTTP client too)' : 'model calls excluded';
    print(`  overhead per stage, ${what}: p50 ${ms(r.engineP50, 3)}  p99 ${ms(r.engineP99, 3)}${r.modelOverHttp ? '' : `  ${against(r.engineP50, r.engineP99)}`}`);
  }
  print(`  stored per run: run stream ${r.runEvents} events / ${r.runBytes} bytes; with tool-call and conversation streams ${r.allEvents} events / ${r.allBytes} bytes`);
}

/**
 * Per-stage orchestration overhead of whole agent runs against a zero-latency scripted model: each
 * run's wall time (send to RunCompleted) minus the time the model spent on its requests, divided by
 * the run's stages. Embedded, over NATS with all services in one process, and as six processes.
 */
export async function runRunBench(print: (line: string) => void, options: RunBenchOptions = {}): Promise<DeploymentResult[]> {
  const settings: Required<RunBenchOptions> = { runs: 30, warmupRuns: 5, separateProcesses: true, ...options };
  const serverModelMs = new Map<string, number>();
  const server = await startScriptedModelServer({
    script: (request) => {
      // Arrival (body read) to the end of the response, which the server writes before the next macrotask.
      const arrived = performance.now();
      const runId = request.headers['x-stagecraft-run-id'] ?? '';
      setImmediate(() => add(serverModelMs, runId, performance.now() - arrived));
      return agentReply(request);
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-run-bench-'));
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Sample\nA tiny project.\n');
  const engineModelMs = new Map<string, number>();
  const gateway = timedGateway(createOpenAiGateway({ baseURL: server.url, apiKey: 'test', model: 'scripted', logger: pino({ level: 'silent' }), maxRetries: 0 }), engineModelMs);
  const results: DeploymentResult[] = [];
  let nats: NatsServerHandle | undefined;
  const measureOn = async (open: () => Promise<Deployment>) => {
    const d = await open();
    try {
      const result = await measure(d, project, serverModelMs, settings);
      results.push(result);
      report(print, result);
    } finally {
      await d.close();
    }
  };
  try {
    print(`run bench: ${settings.runs} agent runs per deployment after ${settings.warmupRuns} warm-up runs, zero-latency scripted model`);
    await measureOn(() => embedded(dir, gateway, engineModelMs));
    await measureOn(() => embedded(dir, timedGateway(inProcessModel(), engineModelMs), engineModelMs, false));
    nats = await startNatsServer();
    const url = nats;
    await measureOn(() => natsOneProcess(dir, url, gateway, engineModelMs));
    if (settings.separateProcesses) await measureOn(() => natsSixProcesses(dir, url, server.url));
  } finally {
    await nats?.stop();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
