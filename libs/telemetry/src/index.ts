/** Observability for every process: OpenTelemetry traces, a Prometheus registry, and pino logs with run and trace ids. */
/*
 * Observability for every Stagecraft process: traces (OpenTelemetry, off unless the `OTEL_*`
 * variables ask for them), Prometheus metrics (one registry per process, served on `/metrics`),
 * and the logger whose lines name the service, run and trace. See docs/observability.md.
 */
export {
  tracingRequested,
  startTracing,
  startTracingFromEnv,
  stopTracing,
  tracingActive,
  type Tracing,
  type StartTracingOptions,
} from './tracing';
export {
  SpanKind,
  withSpan,
  startSpan,
  inSpan,
  recordFailure,
  activeTraceId,
  withTraceHeaders,
  traceContextOf,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
} from './spans';
export {
  enableMetrics,
  metricsEndpoint,
  metricsExposition,
  secondsSince,
  recordRunStarted,
  recordRunEnded,
  recordStage,
  recordModelCall,
  recordToolCall,
  recordRequest,
  recordAppend,
  trackLag,
  type MetricsExposition,
  type ModelCallMeasure,
} from './metrics';
export { subjectLabel } from './subjects';
export { withRunContext, currentRunId } from './run-context';
export { createLogger, logContext, type LoggerOptions } from './logger';
