import type { Attributes, Context, Link, Span } from '@opentelemetry/api';
import { tracingActive } from './tracing';

export type { Attributes, Context, Span };

/**
 * `@opentelemetry/api` is loaded on first use with tracing on: a process that does not trace never
 * pays for it (about 20 ms of start-up).
 */
let loaded: typeof import('@opentelemetry/api') | undefined;
/** Held once loaded: `require` resolves its name again on every call, which cost more than the spans themselves. */
const api = (): typeof import('@opentelemetry/api') => (loaded ??= require('@opentelemetry/api') as typeof import('@opentelemetry/api'));

/** The span kinds this project uses, with the values of `@opentelemetry/api`'s `SpanKind`. */
export const SpanKind = { INTERNAL: 0, SERVER: 1, CLIENT: 2 } as const;
export type SpanKind = (typeof SpanKind)[keyof typeof SpanKind];

/** What `withSpan` hands its work with tracing off: records nothing. */
const NOOP_SPAN: Span = {
  spanContext: () => ({ traceId: '00000000000000000000000000000000', spanId: '0000000000000000', traceFlags: 0 }),
  setAttribute: () => NOOP_SPAN,
  setAttributes: () => NOOP_SPAN,
  addEvent: () => NOOP_SPAN,
  addLink: () => NOOP_SPAN,
  addLinks: () => NOOP_SPAN,
  setStatus: () => NOOP_SPAN,
  updateName: () => NOOP_SPAN,
  end: () => undefined,
  isRecording: () => false,
  recordException: () => undefined,
};

const tracer = () => api().trace.getTracer('stagecraft');

/** What a span records when its work fails: the error's code (a StagecraftError's) and message. */
export function recordFailure(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  span.setStatus({ code: api().SpanStatusCode.ERROR, message: typeof message === 'string' ? message : String(error) });
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
  const { context, trace } = api();
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
  const parent = options.parent ?? api().context.active();
  return tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes, links: options.links }, parent);
}

/** Runs `fn` with `span` as the active span (nothing happens with a null span). */
export function inSpan<T>(span: Span | null, fn: () => T): T {
  if (!span) return fn();
  const { context, trace } = api();
  return context.with(trace.setSpan(context.active(), span), fn);
}

/** The active span's trace id, for log lines; undefined when nothing is traced. */
export function activeTraceId(): string | undefined {
  if (!tracingActive()) return undefined;
  const { trace } = api();
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/**
 * The active trace context as W3C `traceparent` / `tracestate` headers, added to a copy of `headers`
 * (returned unchanged when nothing is traced). Message headers cross the bus as they are, on NATS and
 * in process alike, so the responder continues the same trace.
 */
export function withTraceHeaders<H extends Readonly<Record<string, string>>>(headers: H): H {
  if (!tracingActive()) return headers;
  const { context, propagation } = api();
  const carrier: Record<string, string> = { ...headers };
  propagation.inject(context.active(), carrier);
  return carrier as H;
}

/** The trace context a message's headers carry, as a parent for the span that serves it; undefined: the active one. */
export function traceContextOf(headers: Readonly<Record<string, string>>): Context | undefined {
  if (!tracingActive() || !headers['traceparent']) return undefined;
  const { context, propagation } = api();
  return propagation.extract(context.active(), headers);
}
