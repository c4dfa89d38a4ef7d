import {
  Attributes,
  Context,
  INVALID_SPAN_CONTEXT,
  Link,
  Span,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { tracingActive } from './tracing';

export { SpanKind, type Attributes, type Context, type Span };

const tracer = () => trace.getTracer('stagecraft');
const NOOP_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** What a span records when its work fails: the error's code (a StagecraftError's) and message. */
export function recordFailure(span: Span, error: unknown): void {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof message === 'string' ? message : String(error) });
  if (typeof code === 'string') span.setAttribute('error.type', code);
}

export interface SpanOptions {
  kind?: SpanKind;
  /** The parent; default: the active context. */
  parent?: Context;
  links?: Link[];
}

/**
 * Runs `fn` inside a new span, the span's context active for everything `fn` awaits, and ends the
 * span when `fn` settles (a rejection marks it failed). With tracing off it only calls `fn`.
 */
export function withSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, options: SpanOptions = {}): Promise<T> {
  if (!tracingActive()) return fn(NOOP_SPAN);
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes, links: options.links }, parent);
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span the caller ends itself (a stage, which ends when the next one begins). Null with tracing off. */
export function startSpan(name: string, attributes: Attributes, options: SpanOptions = {}): Span | null {
  if (!tracingActive()) return null;
  return tracer().startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes, links: options.links },
    options.parent ?? context.active(),
  );
}

/** Runs `fn` with `span` as the active span (nothing happens with a null span). */
export function inSpan<T>(span: Span | null, fn: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/** The active span's trace id, for log lines; undefined when nothing is traced. */
export function activeTraceId(): string | undefined {
  if (!tracingActive()) return undefined;
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** The active span's context, to link a span of a later trace to it. */
export function activeSpanContextLink(): Link | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && trace.isSpanContextValid(spanContext) ? { context: spanContext } : undefined;
}

/**
 * The active trace context as W3C `traceparent` / `tracestate` headers, added to a copy of `headers`
 * (returned unchanged when nothing is traced). Message headers cross the bus as they are, on NATS and
 * in process alike, so the responder continues the same trace.
 */
export function withTraceHeaders<H extends Readonly<Record<string, string>>>(headers: H): H {
  if (!tracingActive()) return headers;
  const carrier: Record<string, string> = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier as H;
}

/** The trace context a message's headers carry, on top of the active one (which it replaces when present). */
export function traceContextOf(headers: Readonly<Record<string, string>>): Context {
  if (!tracingActive() || !headers['traceparent']) return context.active();
  return propagation.extract(context.active(), headers);
}
