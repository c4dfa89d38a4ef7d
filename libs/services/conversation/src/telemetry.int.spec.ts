import { InMemorySpanExporter, ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { Host } from '@stagecraft/service-shell';
import { Tracing, metricsExposition, startTracing } from '@stagecraft/telemetry';
import { eventually, readWriteAgentScript } from '@stagecraft/testing';
import { runToEnd, startEmbedded } from '@stagecraft/testing-system';

// The exposition parser has no type declarations.
const parsePrometheus = require('parse-prometheus-text-format') as (text: string) => MetricFamily[];
interface MetricFamily {
  name: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}

/** The sum of a counter's or gauge's samples whose labels include `labels`; 0 when absent. */
function sampleOf(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  const matching = family?.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)) ?? [];
  return matching.reduce((sum, m) => sum + Number(m.value ?? 0), 0);
}

const idOf = (span: ReadableSpan) => span.spanContext().spanId;

/** The names of a span's ancestors, nearest first. */
function ancestry(span: ReadableSpan, byId: Map<string, ReadableSpan>): string[] {
  const names: string[] = [];
  for (let parent = span.parentSpanContext; parent;) {
    const found = byId.get(parent.spanId);
    if (!found) break;
    names.push(found.name);
    parent = found.parentSpanContext;
  }
  return names;
}

describe('telemetry of an embedded run', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let host: Host;
  let project: string;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    tracing = startTracing({ serviceName: 'stagecraft', spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    await metricsExposition();
    ({ host, project, close } = await startEmbedded({
      script: readWriteAgentScript,
      dirPrefix: 'stagecraft-telemetry-',
      readme: '# Sample\nA tiny project.\n',
    }));
  });

  afterAll(async () => {
    await close?.();
    await tracing?.shutdown();
  });

  it('records one trace for a run: the request at its root, then the run, its stages, model calls, tool calls, requests and appends', async () => {
    const before = parsePrometheus((await metricsExposition()).body);
    const runId = 'run-telemetry-1';
    const { end } = await runToEnd(host, { runId, message: 'Write notes about this project', projectRoot: project });
    expect(end.type).toBe('RunCompleted');

    const run = await eventually(
      async () => exporter.getFinishedSpans().find((s) => s.name === 'run' && s.attributes['stagecraft.run_id'] === runId),
      'the run span',
    );
    const traceId = run.spanContext().traceId;
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const byId = new Map(spans.map((s) => [idOf(s), s]));

    // One root, and every other span's parent is in the same trace.
    const roots = spans.filter((s) => !s.parentSpanContext);
    expect(roots.map((s) => s.name)).toEqual(['request conversation.send']);
    for (const span of spans.filter((s) => s.parentSpanContext)) expect(byId.has(span.parentSpanContext!.spanId)).toBe(true);
    expect(ancestry(run, byId)).toEqual(['serve conversation.send', 'request conversation.send']);

    const stages = spans.filter((s) => s.name.startsWith('stage '));
    expect(new Set(stages.map((s) => s.attributes['stagecraft.stage']))).toEqual(
      new Set(['warmup', 'act', 'tool_followup', 'delivery_check', 'qa_review']),
    );
    for (const stage of stages) expect(stage.parentSpanContext?.spanId).toBe(idOf(run));

    const modelCalls = spans.filter((s) => s.name === 'model call');
    expect(modelCalls.length).toBeGreaterThanOrEqual(6);
    for (const call of modelCalls) {
      expect(call.attributes).toMatchObject({ 'gen_ai.request.model': 'scripted', 'stagecraft.outcome': 'ok' });
      expect(typeof call.attributes['gen_ai.usage.input_tokens']).toBe('number');
      expect(ancestry(call, byId)).toContain('run');
    }
    // The reviewer's model call happens in the QA service, under the run's qa_review stage.
    const review = modelCalls.find((s) => s.attributes['stagecraft.stage'] === 'qa_review');
    expect(ancestry(review!, byId).slice(0, 3)).toEqual(['serve qa.review', 'request qa.review', 'stage qa_review']);

    const toolCalls = spans.filter((s) => s.name === 'tool call');
    expect(toolCalls.map((s) => [s.attributes['stagecraft.tool'], s.attributes['stagecraft.outcome']])).toEqual([
      ['read_file', 'ok'],
      ['write_file', 'ok'],
    ]);
    for (const call of toolCalls) expect(ancestry(call, byId).slice(0, 2)).toEqual(['serve tool.execute', 'request tool.execute']);

    const requested = new Set(spans.filter((s) => s.name.startsWith('request ')).map((s) => s.attributes['stagecraft.subject']));
    for (const subject of ['conversation.send', 'prompt.assemble', 'tool.execute', 'qa.review']) expect(requested).toContain(subject);

    const appends = spans.filter((s) => s.name === 'store append' && s.attributes['stagecraft.stream'] === `run-${runId}`);
    expect(appends.length).toBeGreaterThan(3);
    for (const append of appends) expect(append.attributes['stagecraft.event_count']).toBeGreaterThan(0);
    // The run's first commit is the send request's own; every later one is the run's.
    const [first, ...later] = [...appends].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    expect(ancestry(first, byId)[0]).toBe('serve conversation.send');
    for (const append of later) expect(ancestry(append, byId)).toContain('run');

    const after = parsePrometheus((await metricsExposition()).body);
    const moved = (name: string, labels: Record<string, string> = {}) => sampleOf(after, name, labels) - sampleOf(before, name, labels);
    expect(moved('stagecraft_runs_total', { outcome: 'completed' })).toBe(1);
    expect(moved('stagecraft_model_calls_total', { model: 'scripted', outcome: 'ok' })).toBe(modelCalls.length);
    expect(moved('stagecraft_model_tokens_total', { direction: 'in' })).toBeGreaterThan(0);
    expect(moved('stagecraft_tool_calls_total', { tool: 'write_file', outcome: 'ok' })).toBe(1);
    expect(moved('stagecraft_requests_total', { side: 'server', subject: 'tool.execute', outcome: 'ok' })).toBe(2);
    expect(moved('stagecraft_requests_total', { side: 'client', subject: 'conversation.send', outcome: 'ok' })).toBe(1);
    expect(moved('stagecraft_store_appended_events_total', { store: 'sqlite' })).toBeGreaterThan(10);
    for (const histogram of ['stage', 'model_call', 'tool_call', 'request', 'store_append'])
      expect(after.find((f) => f.name === `stagecraft_${histogram}_duration_seconds`)?.metrics.length).toBeGreaterThan(0);
    expect(sampleOf(after, 'stagecraft_active_runs')).toBe(0);
    expect(after.find((f) => f.name === 'process_cpu_user_seconds_total')).toBeDefined();
  });
});
