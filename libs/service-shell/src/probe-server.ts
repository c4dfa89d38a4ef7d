import { createServer, Server } from 'node:http';

/** One dependency as `/readyz` reports it; a check that is not `required` only warns (the model endpoint). */
export interface ReadinessCheck {
  name: string;
  ok: boolean;
  required: boolean;
  /** Where the dependency was looked for: a NATS URL, a store address, a model base URL. */
  address?: string;
  detail?: string;
  latencyMs?: number;
}

export interface ReadinessReport {
  ready: boolean;
  checks: ReadinessCheck[];
}

export interface ProbeServerOptions {
  port: number;
  host: string;
  /** The dependencies to check on each `/readyz`. */
  readiness: () => Promise<ReadinessCheck[]>;
  /** The Prometheus text exposition for `/metrics`; absent: `/metrics` answers 404. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

export const readinessOf = (checks: ReadinessCheck[]): ReadinessReport => ({
  ready: checks.every((c) => c.ok || !c.required),
  checks,
});

/**
 * Kubernetes probes over plain HTTP: `/healthz` says the process is alive; `/readyz` checks each
 * dependency right now and answers 200 when every required one is up (503 otherwise), with the report
 * as JSON; `/metrics` serves Prometheus metrics.
 */
export async function startProbeServer(options: ProbeServerOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (path === '/readyz') {
      options.readiness().then(
        (checks) => {
          const report = readinessOf(checks);
          res.writeHead(report.ready ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(report));
        },
        (error: Error) =>
          res
            .writeHead(503, { 'content-type': 'application/json' })
            .end(JSON.stringify({ ready: false, checks: [{ name: 'readiness', ok: false, required: true, detail: error.message }] })),
      );
      return;
    }
    if (path === '/metrics' && options.metrics) {
      options.metrics().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
        (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
      );
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
