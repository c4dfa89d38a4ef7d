import type { SpanProcessor } from '@opentelemetry/sdk-trace';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Tracing is off unless the environment asks for it, the way the OpenTelemetry variables do:
 * `OTEL_TRACES_EXPORTER` set to anything but `none`, or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). `OTEL_SDK_DISABLED=true` wins over both.
 */
export function tracingRequested(env: Env): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  if (exporters.length > 0) return exporters.some((e) => e !== 'none');
  return Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim() || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim());
}

export interface Tracing {
  /** Exports what is still buffered, then stops; spans started afterwards are not recorded. */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  serviceName: string;
  /** Where spans go instead of the exporters the `OTEL_*` variables name (tests: an in-memory exporter). */
  spanProcessors?: SpanProcessor[];
}

let active: { serviceName: string; tracing: Tracing } | null = null;

/** Whether this process records spans; when it does not, every helper here is a plain call. */
export const tracingActive = (): boolean => active !== null;

/**
 * Starts the OpenTelemetry SDK for this process. The SDK is loaded only here: a process that does
 * not trace never loads it (it costs a few hundred milliseconds of start-up). One per process: a
 * second call (several services hosted in one process) gets the running one.
 */
export function startTracing(options: StartTracingOptions): Tracing {
  if (active) return active.tracing;
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    spanProcessors: options.spanProcessors,
    // Traces only: metrics are Prometheus's (`/metrics`) and logs go to stderr.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  const tracing: Tracing = {
    async shutdown() {
      if (active?.tracing !== tracing) return;
      active = null;
      await sdk.shutdown();
      // Lets a later `startTracing` in the same process (tests) register its own provider.
      const { context, propagation, trace } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
  active = { serviceName: options.serviceName, tracing };
  return tracing;
}

/** Starts tracing when the environment asks for it (see `tracingRequested`); null otherwise. */
export function startTracingFromEnv(serviceName: string, env: Env): Tracing | null {
  return tracingRequested(env) ? startTracing({ serviceName: env['OTEL_SERVICE_NAME']?.trim() || serviceName }) : null;
}

/** Exports what the running SDK still holds and stops it (process shutdown); nothing when not tracing. */
export async function stopTracing(): Promise<void> {
  await active?.tracing.shutdown();
}
