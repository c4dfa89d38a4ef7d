import { createServer, Server } from 'node:http';

/**
 * Kubernetes probes over plain HTTP: `/healthz` says the process is alive, `/readyz` that its
 * NATS connection and store answer right now.
 */
export async function startProbeServer(port: number, host: string, ready: () => Promise<void>): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (req.url === '/readyz') {
      ready().then(
        () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ready'),
        (error: Error) => res.writeHead(503, { 'content-type': 'text/plain' }).end(`not ready: ${error.message}`),
      );
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
