import { Writable } from 'node:stream';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { createLogger } from './logger';
import { enableMetrics, metricsExposition, recordRequest, recordRunEnded, recordRunStarted, trackLag } from './metrics';
import { withRunContext } from './run-context';
import { SpanKind, traceContextOf, withSpan, withTraceHeaders } from './spans';
import { Tracing, startTracing, tracingActive } from './tracing';

/** A pino destination that keeps each JSON line. */
function lines(): { stream: Writable; parsed: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    parsed: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('with tracing off', () => {
  it('runs the work without spans and adds no headers', async () => {
    expect(tracingActive()).toBe(false);
    const headers = { 'stagecraft-correlation-id': 'c1' };
    expect(withTraceHeaders(headers)).toBe(headers);
    await expect(withSpan('work', {}, async (span) => span.isRecording())).resolves.toBe(false);
  });

  it('logs level names, the service and the run, and no trace id', () => {
    const out = lines();
    const logger = createLogger({ service: 'policy', level: 'info', destination: out.stream });
    logger.info('outside a run');
    withRunContext('run-7', () => logger.warn({ extra: 1 }, 'inside a run'));
    const [outside, inside] = out.parsed();
    expect(outside).toMatchObject({ level: 'info', service: 'policy', msg: 'outside a run' });
    expect(outside).not.toHaveProperty('runId');
    expect(inside).toMatchObject({ level: 'warn', service: 'policy', runId: 'run-7', extra: 1 });
    expect(inside).not.toHaveProperty('traceId');
  });
});

describe('with tracing on', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;

  /** The processor hands spans to the exporter asynchronously. */
  async function finished(count: number) {
    for (let i = 0; i < 100 && exporter.getFinishedSpans().length < count; i++) await new Promise((r) => setTimeout(r, 5));
    return exporter.getFinishedSpans();
  }

  beforeAll(() => {
    tracing = startTracing({ serviceName: 'test', spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  });
  afterAll(() => tracing.shutdown());
  beforeEach(() => exporter.reset());

  it('carries the trace in W3C headers from a requester to a responder, who continues it', async () => {
    const sent: Record<string, string> = await withSpan(
      'request x',
      {},
      async () => withTraceHeaders({ 'stagecraft-correlation-id': 'c1' }),
      {
        kind: SpanKind.CLIENT,
      },
    );
    expect(sent['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(sent['stagecraft-correlation-id']).toBe('c1');
    await withSpan('serve x', {}, async () => undefined, { kind: SpanKind.SERVER, parent: traceContextOf(sent) });
    const [client, server] = await finished(2);
    expect(server.spanContext().traceId).toBe(client.spanContext().traceId);
    expect(server.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
  });

  it('marks a span failed with the error code when its work rejects, and passes the rejection on', async () => {
    const failure = Object.assign(new Error('no such run'), { code: 'NOT_FOUND' });
    await expect(withSpan('work', {}, () => Promise.reject(failure))).rejects.toBe(failure);
    const [span] = await finished(1);
    expect(span.status).toMatchObject({ code: 2, message: 'no such run' });
    expect(span.attributes['error.type']).toBe('NOT_FOUND');
  });

  it('puts the active trace id on log lines', async () => {
    const out = lines();
    const logger = createLogger({ service: 'qa', level: 'info', destination: out.stream });
    const traceId = await withSpan('work', {}, async (span) => {
      logger.info('traced');
      return span.spanContext().traceId;
    });
    expect(out.parsed()[0]).toMatchObject({ level: 'info', service: 'qa', traceId });
  });
});

describe('metrics', () => {
  it('serves the Prometheus exposition of this process, process metrics included', async () => {
    enableMetrics();
    recordRunStarted();
    recordRunEnded('completed');
    recordRequest('server', 'policy.decide', 'VALIDATION', 0.002);
    let position = 5n;
    const untrack = trackLag('memory-history', { position: () => position, head: async () => 12n });
    const { contentType, body } = await metricsExposition();
    expect(contentType).toMatch(/^text\/plain/);
    expect(body).toContain('stagecraft_runs_total{outcome="completed"} 1');
    expect(body).toContain('stagecraft_active_runs 0');
    expect(body).toContain('stagecraft_requests_total{side="server",subject="policy.decide",outcome="VALIDATION"} 1');
    expect(body).toContain('stagecraft_projection_lag_events{projection="memory-history"} 7');
    expect(body).toContain('process_cpu_user_seconds_total');
    position = 12n;
    expect((await metricsExposition()).body).toContain('stagecraft_projection_lag_events{projection="memory-history"} 0');
    untrack();
    expect((await metricsExposition()).body).not.toContain('projection="memory-history"');
  });
});
