import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { subjectLabel } from './subjects';

/** Seconds: model calls and tool calls take long, requests and appends are short. */
const SHORT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LONG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];

interface Metrics {
  registry: Registry;
  runs: Counter<'outcome'>;
  activeRuns: Gauge;
  stageDuration: Histogram<'stage'>;
  modelCalls: Counter<'model' | 'stage' | 'outcome'>;
  modelCallDuration: Histogram<'model' | 'stage' | 'outcome'>;
  modelTokens: Counter<'model' | 'stage' | 'direction'>;
  toolCalls: Counter<'tool' | 'outcome'>;
  toolCallDuration: Histogram<'tool' | 'outcome'>;
  requests: Counter<'side' | 'subject' | 'outcome'>;
  requestDuration: Histogram<'side' | 'subject' | 'outcome'>;
  appendDuration: Histogram<'store'>;
  appendedEvents: Counter<'store'>;
}

/** A projection or processor whose distance from the head of the log is reported on each scrape. */
interface LagSource {
  position(): bigint;
  head(): Promise<bigint | undefined>;
}
const lagSources = new Map<string, LagSource>();

let metrics: Metrics | null = null;

function createMetrics(): Metrics {
  // Loaded on first use: a process that serves no /metrics never loads prom-client.
  const client = require('prom-client') as typeof import('prom-client');
  // This process's own registry, not prom-client's global one: tests that host services share a process.
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    runs: new client.Counter({
      name: 'stagecraft_runs_total',
      help: 'Runs driven to an end or a pause, by outcome (completed, failed, cancelled, waiting, stopped)',
      labelNames: ['outcome'],
      registers,
    }),
    activeRuns: new client.Gauge({ name: 'stagecraft_active_runs', help: 'Runs this process is driving now', registers }),
    stageDuration: new client.Histogram({
      name: 'stagecraft_stage_duration_seconds',
      help: 'Time a run spent in one stage entry',
      labelNames: ['stage'],
      buckets: LONG_BUCKETS,
      registers,
    }),
    modelCalls: new client.Counter({
      name: 'stagecraft_model_calls_total',
      help: 'Model calls, by model, stage and outcome (ok or an error code)',
      labelNames: ['model', 'stage', 'outcome'],
      registers,
    }),
    modelCallDuration: new client.Histogram({
      name: 'stagecraft_model_call_duration_seconds',
      help: 'Model call latency, by model, stage and outcome (ok or an error code)',
      labelNames: ['model', 'stage', 'outcome'],
      buckets: LONG_BUCKETS,
      registers,
    }),
    modelTokens: new client.Counter({
      name: 'stagecraft_model_tokens_total',
      help: 'Tokens of model calls, by model, stage and direction (in: prompt, out: completion)',
      labelNames: ['model', 'stage', 'direction'],
      registers,
    }),
    toolCalls: new client.Counter({
      name: 'stagecraft_tool_calls_total',
      help: 'Tool calls executed, by tool and outcome (ok or an error code)',
      labelNames: ['tool', 'outcome'],
      registers,
    }),
    toolCallDuration: new client.Histogram({
      name: 'stagecraft_tool_call_duration_seconds',
      help: 'Tool call latency, by tool and outcome',
      labelNames: ['tool', 'outcome'],
      buckets: LONG_BUCKETS,
      registers,
    }),
    requests: new client.Counter({
      name: 'stagecraft_requests_total',
      help: 'Requests by subject and outcome, as the requester (side=client) and the responder (side=server) saw them',
      labelNames: ['side', 'subject', 'outcome'],
      registers,
    }),
    requestDuration: new client.Histogram({
      name: 'stagecraft_request_duration_seconds',
      help: 'Request latency by subject, as the requester (side=client) and the responder (side=server) saw it',
      labelNames: ['side', 'subject', 'outcome'],
      buckets: SHORT_BUCKETS,
      registers,
    }),
    appendDuration: new client.Histogram({
      name: 'stagecraft_store_append_duration_seconds',
      help: 'Event store append latency, by store kind',
      labelNames: ['store'],
      buckets: SHORT_BUCKETS,
      registers,
    }),
    appendedEvents: new client.Counter({
      name: 'stagecraft_store_appended_events_total',
      help: 'Events appended to the event store, by store kind',
      labelNames: ['store'],
      registers,
    }),
  };
}

function createLagGauge(client: typeof import('prom-client'), registry: Registry): void {
  new client.Gauge({
    name: 'stagecraft_projection_lag_events',
    help: 'Events between the head of the log and the last one a projection or processor of this process has handled',
    labelNames: ['projection'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [name, source] of lagSources) {
        const head = await source.head().catch(() => undefined);
        if (head === undefined) continue;
        const behind = head - source.position();
        this.set({ projection: name }, Number(behind > 0n ? behind : 0n));
      }
    },
  });
}

/** Starts recording metrics in this process (idempotent); until then every `record*` is a no-op. */
export function enableMetrics(): void {
  if (metrics) return;
  metrics = createMetrics();
  createLagGauge(require('prom-client') as typeof import('prom-client'), metrics.registry);
}

export interface MetricsExposition {
  contentType: string;
  body: string;
}

/** This process's metrics in the Prometheus text format (enables recording if it was off). */
export async function metricsExposition(): Promise<MetricsExposition> {
  enableMetrics();
  const { registry } = metrics as Metrics;
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/**
 * What a probe server's `/metrics` serves: recording starts now, so everything after start-up counts.
 * `startProbeServer({ …, metrics: metricsEndpoint() })`.
 */
export function metricsEndpoint(): () => Promise<MetricsExposition> {
  enableMetrics();
  return metricsExposition;
}

/** Seconds since a `performance.now()` reading. */
export const secondsSince = (startMs: number): number => (performance.now() - startMs) / 1000;

export function recordRunStarted(): void {
  metrics?.activeRuns.inc();
}

export function recordRunEnded(outcome: 'completed' | 'failed' | 'cancelled' | 'waiting' | 'stopped'): void {
  if (!metrics) return;
  metrics.activeRuns.dec();
  metrics.runs.inc({ outcome });
}

export function recordStage(stage: string, seconds: number): void {
  metrics?.stageDuration.observe({ stage }, seconds);
}

export interface ModelCallMeasure {
  model: string;
  stage: string;
  outcome: string;
  seconds: number;
  tokensIn?: number;
  tokensOut?: number;
}

export function recordModelCall(call: ModelCallMeasure): void {
  if (!metrics) return;
  const { model, stage } = call;
  metrics.modelCalls.inc({ model, stage, outcome: call.outcome });
  metrics.modelCallDuration.observe({ model, stage, outcome: call.outcome }, call.seconds);
  if (call.tokensIn) metrics.modelTokens.inc({ model, stage, direction: 'in' }, call.tokensIn);
  if (call.tokensOut) metrics.modelTokens.inc({ model, stage, direction: 'out' }, call.tokensOut);
}

export function recordToolCall(tool: string, outcome: string, seconds: number): void {
  if (!metrics) return;
  metrics.toolCalls.inc({ tool, outcome });
  metrics.toolCallDuration.observe({ tool, outcome }, seconds);
}

export function recordRequest(side: 'client' | 'server', subject: string, outcome: string, seconds: number): void {
  if (!metrics) return;
  // Contract subjects name no instance; a subject that does (`run.<id>.…`) must not become a label value per run.
  const labels = { side, subject: subjectLabel(subject), outcome };
  metrics.requests.inc(labels);
  metrics.requestDuration.observe(labels, seconds);
}

export function recordAppend(store: string, events: number, seconds: number): void {
  if (!metrics) return;
  metrics.appendDuration.observe({ store }, seconds);
  metrics.appendedEvents.inc({ store }, events);
}

/**
 * Reports how far a projection or processor is behind the head of the log, on each scrape. Returns
 * the function that stops reporting it. A name tracked twice keeps the later source.
 */
export function trackLag(name: string, source: LagSource): () => void {
  lagSources.set(name, source);
  return () => {
    if (lagSources.get(name) === source) lagSources.delete(name);
  };
}
