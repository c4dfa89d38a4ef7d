// Probes shared by the integration and e2e projects, run once before any suite registers tests.
// Each probe decides quickly and quietly, and leaves its answer in the environment the test
// workers inherit: STAGECRAFT_KURRENTDB_URL, or STAGECRAFT_KURRENTDB_UNAVAILABLE=<reason>.
const { existsSync } = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const { homedir } = require('node:os');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const image = 'kurrentplatform/kurrentdb';
const probeTimeoutMs = 1500;

/** First host:port of a KurrentDB connection string (port 2113 when absent). */
function firstEndpoint(connectionString) {
  const match = /^[a-z+]+:\/\/(?:[^@/?#]*@)?([^/?#]+)/i.exec(connectionString);
  if (!match) return null;
  const [host, port] = match[1].split(',')[0].split(':');
  return host ? { host, port: Number(port || 2113) } : null;
}

/**
 * Asks the node's liveness endpoint. A bare TCP connect proves nothing: some networks accept any
 * connection (a sandbox proxy answers 404 for every host).
 */
function kurrentAlive({ host, port }, tls) {
  return new Promise((resolve) => {
    const client = tls ? https : http;
    const request = client.get({ host, port, path: '/health/live', timeout: probeTimeoutMs, rejectUnauthorized: false }, (response) => {
      response.resume();
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      resolve(ok ? true : `HTTP ${response.statusCode} from /health/live`);
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => resolve(error.code || error.message));
  });
}

function dockerSocket() {
  const fromEnv = process.env.DOCKER_HOST;
  if (fromEnv) return fromEnv.startsWith('unix://') ? { socketPath: fromEnv.slice('unix://'.length) } : { url: fromEnv };
  const candidates = ['/var/run/docker.sock', join(homedir(), '.docker', 'run', 'docker.sock')];
  if (process.env.XDG_RUNTIME_DIR) candidates.push(join(process.env.XDG_RUNTIME_DIR, 'docker.sock'));
  const found = candidates.find((path) => existsSync(path));
  return found ? { socketPath: found } : null;
}

function dockerGet(target, path) {
  return new Promise((resolve) => {
    const options = target.socketPath
      ? { socketPath: target.socketPath, path }
      : { host: new URL(target.url.replace(/^tcp:/, 'http:')).hostname, port: new URL(target.url.replace(/^tcp:/, 'http:')).port, path };
    const request = http.get({ ...options, timeout: probeTimeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, body }));
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => resolve({ error: error.code || error.message }));
  });
}

async function localKurrentImage(target) {
  const ping = await dockerGet(target, '/_ping');
  if (ping.error || ping.status !== 200) return { reason: `no container runtime answers (${ping.error || `HTTP ${ping.status}`})` };
  const filters = encodeURIComponent(JSON.stringify({ reference: [image] }));
  const images = await dockerGet(target, `/images/json?filters=${filters}`);
  const tags = images.body ? JSON.parse(images.body).flatMap((i) => i.RepoTags || []) : [];
  return tags.length > 0 ? { tag: tags[0] } : { reason: `image ${image} is not present locally and nothing can be pulled here` };
}

async function startContainer(tag) {
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  const { GenericContainer, Wait } = require('testcontainers');
  const container = await new GenericContainer(tag)
    .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_MEM_DB: 'true' })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
    .withStartupTimeout(60_000)
    .start();
  // Without Ryuk nothing reaps the container; the config has no globalTeardown, so remove it on exit.
  const id = container.getId();
  process.once('exit', () => spawnSync('docker', ['rm', '-f', id], { stdio: 'ignore' }));
  return `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
}

async function probeKurrentDb() {
  const given = process.env.KURRENTDB_URL;
  if (given) {
    const endpoint = firstEndpoint(given);
    if (!endpoint) return { unavailable: `KURRENTDB_URL=${given} is not a KurrentDB connection string` };
    const reachable = await kurrentAlive(endpoint, !/[?&]tls=false\b/i.test(given));
    return reachable === true ? { url: given } : { unavailable: `KURRENTDB_URL=${given} not reachable (${reachable})` };
  }
  const target = dockerSocket();
  if (!target) return { unavailable: 'KURRENTDB_URL not set and no container runtime (no DOCKER_HOST, no docker socket)' };
  const found = await localKurrentImage(target);
  if (!found.tag) return { unavailable: `KURRENTDB_URL not set and ${found.reason}` };
  try {
    return { url: await startContainer(found.tag) };
  } catch (error) {
    return { unavailable: `KurrentDB container ${found.tag} did not start: ${String(error.message || error).split('\n')[0]}` };
  }
}

module.exports = async () => {
  // Both the integration and the e2e project run this; decide once per Jest run.
  if (process.env.STAGECRAFT_KURRENTDB_URL || process.env.STAGECRAFT_KURRENTDB_UNAVAILABLE) return;
  const kurrentdb = await probeKurrentDb();
  if (kurrentdb.url) process.env.STAGECRAFT_KURRENTDB_URL = kurrentdb.url;
  else process.env.STAGECRAFT_KURRENTDB_UNAVAILABLE = kurrentdb.unavailable;
};
