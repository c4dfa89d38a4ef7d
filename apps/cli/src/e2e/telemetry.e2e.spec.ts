import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import {
  NatsServerHandle,
  SERVICE_APPS,
  ServiceProcess,
  eventually,
  freePort,
  readWriteAgentScript,
  spawnApp,
  startNatsServer,
  waitForHttp,
} from '@stagecraft/testing';
import { randomUUID } from 'node:crypto';
import { MessageBus, Requester, connectNatsBus, createRequester } from '@stagecraft/messaging';
import { runToEnd } from './embedded-system';

// The exposition parser has no type declarations.
const parsePrometheus = require('parse-prometheus-text-format') as (text: string) => MetricFamily[];
interface MetricFamily {
  name: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}

/** A span as this test's OTLP/HTTP JSON receiver keeps it. */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: OtlpAttribute[] }[] }[];
  }[];
}

const valueOf = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ''));
const attributesOf = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** A tiny OTLP/HTTP receiver (`http/json`): every exported span, in arrival order. */
async function startReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; server: Server }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const payload = JSON.parse(body) as OtlpExport;
        for (const resource of payload.resourceSpans ?? []) {
          const service = String(attributesOf(resource.resource?.attributes)['service.name']);
          for (const scope of resource.scopeSpans ?? [])
            for (const s of scope.spans ?? [])
              spans.push({
                service,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                attributes: attributesOf(s.attributes),
              });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, spans, server };
}

/** The sum of a counter's samples whose labels include `labels`; 0 when absent. */
function sampleOf(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  const matching = family?.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)) ?? [];
  return matching.reduce((sum, m) => sum + Number(m.value ?? 0), 0);
}

/**
 * Traces and metrics across the distributed deployment: six service processes exporting spans over
 * OTLP/HTTP JSON to a receiver in this test, and serving Prometheus metrics on their probe ports.
 */
describe('telemetry across six service processes', () => {
  const prefix = 'tel';
  let dir: string;
  let project: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let model: ScriptedModelServer;
  let nats: NatsServerHandle;
  let services: ServiceProcess[] = [];
  const probePorts = new Map<string, number>();
  let bus: MessageBus;
  let requester: Requester;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-telemetry-'));
    project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Sample\nA tiny project.\n');
    receiver = await startReceiver();
    model = await startScriptedModelServer({ script: readWriteAgentScript });
    nats = await startNatsServer();
    const ports = await Promise.all(SERVICE_APPS.map(() => freePort()));
    services = SERVICE_APPS.map((name, i) => {
      probePorts.set(name, ports[i]);
      return spawnApp(name, {
        NATS_URL: nats.url,
        STAGECRAFT_STORE: `sqlite:${join(dir, 'events.db')}`,
        STAGECRAFT_SUBJECT_PREFIX: prefix,
        STAGECRAFT_HEALTH_PORT: String(ports[i]),
        STAGECRAFT_PROJECT_ROOTS: dir,
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: 'test',
        STAGECRAFT_MODEL: 'scripted',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_SERVICE_NAME: name,
      });
    });
    // A loaded machine (other suites running) can take a while to start six Node processes.
    await Promise.all(ports.map((port) => waitForHttp(`http://127.0.0.1:${port}/readyz`, 45_000))).catch((error: Error) => {
      throw new Error(`${error.message}
${services.map((s) => `${s.name} (probe port ${probePorts.get(s.name)}, exit ${s.child.exitCode}): ${s.output()}`).join('\n')}`);
    });
    bus = await connectNatsBus(nats.url, `${prefix}-test`);
    requester = createRequester(bus, { prefix, newId: randomUUID, timeoutMs: 10_000 });
  }, 90_000);

  afterAll(async () => {
    await bus?.close();
    const codes = await Promise.all(services.map((s) => s.stop()));
    await nats?.stop();
    await model?.close();
    receiver?.server.close();
    rmSync(dir, { recursive: true, force: true });
    expect(codes.every((c) => c === 0)).toBe(true);
  });

  const scrapeAll = async () =>
    new Map(
      await Promise.all(
        SERVICE_APPS.map(async (name) => {
          const res = await fetch(`http://127.0.0.1:${probePorts.get(name)}/metrics`);
          expect(res.status).toBe(200);
          return [name, parsePrometheus(await res.text())] as const;
        }),
      ),
    );

  it('follows one run through all six processes as one trace, and every process counts it', async () => {
    const before = await scrapeAll();
    const runId = `run-${randomUUID()}`;
    const { end } = await runToEnd(
      { bus, requester, prefix },
      { runId, message: 'Write notes about this project', projectRoot: project, userMode: 'agent', reasoningEnabled: true },
      60_000,
    );
    expect(end.type).toBe('RunCompleted');

    // Spans arrive in batches: wait until the run's own span, and every service's part of its trace, are in.
    const trace = await eventually(
      async () => {
        const run = receiver.spans.find((s) => s.name === 'run' && s.attributes['stagecraft.run_id'] === runId);
        if (!run) return undefined;
        const spans = receiver.spans.filter((s) => s.traceId === run.traceId);
        return new Set(spans.map((s) => s.service)).size === SERVICE_APPS.length ? { run, spans } : undefined;
      },
      'spans of the run from all six services',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const byId = new Map(trace.spans.map((s) => [s.spanId, s]));
    const roots = trace.spans.filter((s) => !s.parentSpanId);
    // The client here does not trace: the conversation service's `conversation.send` span is the root.
    expect(roots.map((s) => [s.service, s.name])).toEqual([['conversation', 'serve conversation.send']]);
    const root = roots[0];
    const descendsFromRoot = (span: ReceivedSpan): boolean => {
      for (let at: ReceivedSpan | undefined = span; at; at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined)
        if (at === root) return true;
      return false;
    };
    for (const span of trace.spans) expect([span.service, span.name, descendsFromRoot(span)]).toEqual([span.service, span.name, true]);

    const named = (name: string) => trace.spans.filter((s) => s.name === name);
    expect(new Set(trace.spans.map((s) => s.service))).toEqual(new Set(SERVICE_APPS));
    expect(new Set(trace.spans.filter((s) => s.name.startsWith('stage ')).map((s) => s.attributes['stagecraft.stage']))).toEqual(
      new Set(['warmup', 'act', 'tool_followup', 'delivery_check', 'qa_review']),
    );
    expect(new Set(named('model call').map((s) => s.service))).toEqual(new Set(['conversation', 'qa']));
    expect(named('tool call').map((s) => [s.service, s.attributes['stagecraft.tool']])).toEqual([
      ['tool-execution', 'read_file'],
      ['tool-execution', 'write_file'],
    ]);
    // Each request: the requester's client span, and the responder's server span in another process beneath it.
    for (const served of trace.spans.filter((s) => s.name.startsWith('serve ') && s !== root)) {
      const client = byId.get(served.parentSpanId!);
      expect([served.name, client?.name]).toEqual([served.name, served.name.replace('serve ', 'request ')]);
      expect(client?.service).not.toBe(served.service);
    }
    for (const subject of ['policy.table', 'prompt.assemble', 'tool.execute', 'qa.review'])
      expect(named(`serve ${subject}`).length).toBeGreaterThan(0);
    expect(named('store append').some((s) => s.attributes['stagecraft.stream'] === `run-${runId}`)).toBe(true);

    const after = await scrapeAll();
    const moved = (service: (typeof SERVICE_APPS)[number], name: string, labels: Record<string, string> = {}) =>
      sampleOf(after.get(service)!, name, labels) - sampleOf(before.get(service)!, name, labels);
    expect(moved('conversation', 'stagecraft_runs_total', { outcome: 'completed' })).toBe(1);
    expect(moved('conversation', 'stagecraft_model_calls_total', { model: 'scripted', outcome: 'ok' })).toBe(
      named('model call').filter((s) => s.service === 'conversation').length,
    );
    expect(moved('qa', 'stagecraft_model_calls_total', { stage: 'qa_review', outcome: 'ok' })).toBe(1);
    expect(moved('tool-execution', 'stagecraft_tool_calls_total', { outcome: 'ok' })).toBe(2);
    expect(moved('tool-execution', 'stagecraft_requests_total', { side: 'server', subject: 'tool.execute', outcome: 'ok' })).toBe(2);
    expect(moved('conversation', 'stagecraft_requests_total', { side: 'client', subject: 'tool.execute', outcome: 'ok' })).toBe(2);
    expect(moved('prompt-assembly', 'stagecraft_requests_total', { side: 'server', subject: 'prompt.assemble' })).toBeGreaterThan(0);
    expect(moved('conversation', 'stagecraft_store_appended_events_total')).toBeGreaterThan(0);
    for (const name of SERVICE_APPS) expect(after.get(name)!.find((f) => f.name === 'process_resident_memory_bytes')).toBeDefined();
    // The memory service folds the log: its projections report how far behind the head they are.
    expect(after.get('memory')!.find((f) => f.name === 'stagecraft_projection_lag_events')?.metrics.length).toBeGreaterThan(0);
  }, 90_000);
});
