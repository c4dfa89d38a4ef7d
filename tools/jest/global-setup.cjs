// Probes shared by the integration, e2e and containers projects, run once before any suite registers
// tests. Each probe decides quickly and quietly, and leaves its answer in the environment the test
// workers inherit:
//   STAGECRAFT_KURRENTDB_URL, or STAGECRAFT_KURRENTDB_UNAVAILABLE=<reason>;
//   STAGECRAFT_CONTAINERS_IMAGE (the image the container suites run), or STAGECRAFT_CONTAINERS_UNAVAILABLE=<reason>.
const { existsSync } = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const { homedir } = require('node:os');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

// The KurrentDB image docker-compose.yml runs (read from it), so the contract suite tests the engine the deployment uses.
const kurrentImage = require('yaml').parse(require('node:fs').readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8'))
  .services.kurrentdb.image;
const stagecraftImage = process.env.STAGECRAFT_IMAGE || 'stagecraft:local';
const natsImage = process.env.STAGECRAFT_NATS_IMAGE || 'localhost/stagecraft-nats:local';
const buildHint = 'build them with tools/containers/build-images.sh';
const probeTimeoutMs = 1500;
const pullTimeoutMs = 120_000;

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

/** DOCKER_HOST, else the first socket that exists: Docker's, then Podman's API service (tools/containers/podman-service.sh). */
function dockerSocket() {
  const fromEnv = process.env.DOCKER_HOST;
  if (fromEnv) return fromEnv.startsWith('unix://') ? { socketPath: fromEnv.slice('unix://'.length) } : { url: fromEnv };
  const candidates = ['/var/run/docker.sock', join(homedir(), '.docker', 'run', 'docker.sock'), '/run/podman/podman.sock'];
  if (process.env.XDG_RUNTIME_DIR)
    candidates.push(join(process.env.XDG_RUNTIME_DIR, 'docker.sock'), join(process.env.XDG_RUNTIME_DIR, 'podman', 'podman.sock'));
  const found = candidates.find((path) => existsSync(path));
  return found ? { socketPath: found } : null;
}

function dockerRequest(target, method, path) {
  return new Promise((resolve) => {
    const url = target.url && new URL(target.url.replace(/^tcp:/, 'http:'));
    const options = target.socketPath ? { socketPath: target.socketPath, path } : { host: url.hostname, port: url.port, path };
    const request = http.request({ ...options, method, timeout: probeTimeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, body }));
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => resolve({ error: error.code || error.message }));
    request.end();
  });
}

async function runtimeAnswers(target) {
  const ping = await dockerRequest(target, 'GET', '/_ping');
  return ping.error || ping.status !== 200 ? `no container runtime answers (${ping.error || `HTTP ${ping.status}`})` : true;
}

async function imagePresent(target, name) {
  const inspect = await dockerRequest(target, 'GET', `/images/${encodeURIComponent(name)}/json`);
  return inspect.status === 200;
}

/** Testcontainers reads DOCKER_HOST; Ryuk (its reaper) cannot run under Podman, and every suite removes its own containers. */
function exportRuntime(target) {
  if (!process.env.DOCKER_HOST && target.socketPath) process.env.DOCKER_HOST = `unix://${target.socketPath}`;
  if (target.socketPath && target.socketPath.includes('podman')) process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
}

/**
 * Removes, synchronously (it runs on exit), every container carrying `label`, through the runtime's
 * API in a child process; prints what it started and what is left.
 */
function removeLabelledOnExit(target, label, what) {
  const script = `
    const http = require('node:http');
    const target = ${JSON.stringify(target)};
    const call = (method, path) => new Promise((resolve) => {
      const url = target.url && new URL(target.url.replace(/^tcp:/, 'http:'));
      const where = target.socketPath ? { socketPath: target.socketPath } : { host: url.hostname, port: url.port };
      const request = http.request({ ...where, method, path }, (r) => { let b = ''; r.on('data', (c) => (b += c)); r.on('end', () => resolve(b)); });
      request.on('error', () => resolve('[]'));
      request.end();
    });
    const list = async () => JSON.parse(await call('GET', '/containers/json?all=true&filters=' + encodeURIComponent(JSON.stringify({ label: [${JSON.stringify(label)}] }))));
    (async () => {
      const found = await list();
      for (const c of found) await call('DELETE', '/containers/' + c.Id + '?force=true&v=true');
      console.log(${JSON.stringify(what)} + ': started 1 container; removed ' + found.length + ' (' + (await list()).length + ' left)');
    })();`;
  process.once('exit', () => spawnSync(process.execPath, ['-e', script], { stdio: 'inherit' }));
}

async function startKurrentContainer(target) {
  const { GenericContainer, Wait } = require('testcontainers');
  const label = `stagecraft.suite=kurrentdb-contract-${process.pid}`;
  // Registered before the start: a container whose start fails is removed too, never left "Created".
  removeLabelledOnExit(target, label, 'kurrentdb contract suite');
  const container = await new GenericContainer(kurrentImage)
    .withLabels({ 'stagecraft.suite': label.split('=')[1] })
    .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_MEM_DB: 'true' })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
    .withStartupTimeout(60_000)
    .start();
  return `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
}

/** Asks the runtime to pull; a registry that does not answer fails it, or the deadline does. */
async function pullImage(name) {
  const { getContainerRuntimeClient, ImageName } = require('testcontainers');
  const client = await getContainerRuntimeClient();
  let timer;
  const deadline = new Promise(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${pullTimeoutMs / 1000} s`)), pullTimeoutMs)),
  );
  try {
    await Promise.race([client.image.pull(ImageName.fromString(name)), deadline]);
  } finally {
    clearTimeout(timer);
  }
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
  if (!target) return { unavailable: 'KURRENTDB_URL not set and no container runtime (no DOCKER_HOST, no docker or podman socket)' };
  const answers = await runtimeAnswers(target);
  if (answers !== true) return { unavailable: `KURRENTDB_URL not set and ${answers}` };
  exportRuntime(target);
  if (!(await imagePresent(target, kurrentImage))) {
    // Podman's Docker API reports a failed pull inside a successful response: ask for the image again.
    const failed = await pullImage(kurrentImage).then(
      async () => ((await imagePresent(target, kurrentImage)) ? null : 'no registry served it'),
      (error) => String(error.message || error).split('\n')[0],
    );
    if (failed)
      return { unavailable: `KURRENTDB_URL not set, image ${kurrentImage} is not present locally and pulling it failed (${failed})` };
  }
  try {
    return { url: await startKurrentContainer(target) };
  } catch (error) {
    return { unavailable: `KurrentDB container ${kurrentImage} did not start: ${String(error.message || error).split('\n')[0]}` };
  }
}

async function probeContainers() {
  const target = dockerSocket();
  if (!target)
    return { unavailable: 'no container runtime (no DOCKER_HOST, no docker or podman socket; see tools/containers/podman-service.sh)' };
  const answers = await runtimeAnswers(target);
  if (answers !== true) return { unavailable: `${answers} at ${target.socketPath || target.url}` };
  exportRuntime(target);
  const missing = [];
  for (const name of [stagecraftImage, natsImage]) if (!(await imagePresent(target, name))) missing.push(name);
  if (missing.length > 0) return { unavailable: `image ${missing.join(' and ')} not built (${buildHint})` };
  return { image: stagecraftImage };
}

// Jest runs one global setup file once per run, however many projects name it: answer both questions.
module.exports = async () => {
  if (!process.env.STAGECRAFT_CONTAINERS_IMAGE && !process.env.STAGECRAFT_CONTAINERS_UNAVAILABLE) {
    const containers = await probeContainers();
    if (containers.image) {
      process.env.STAGECRAFT_CONTAINERS_IMAGE = containers.image;
      process.env.STAGECRAFT_NATS_IMAGE = natsImage;
    } else process.env.STAGECRAFT_CONTAINERS_UNAVAILABLE = containers.unavailable;
  }
  if (!process.env.STAGECRAFT_KURRENTDB_URL && !process.env.STAGECRAFT_KURRENTDB_UNAVAILABLE) {
    const kurrentdb = await probeKurrentDb();
    if (kurrentdb.url) process.env.STAGECRAFT_KURRENTDB_URL = kurrentdb.url;
    else process.env.STAGECRAFT_KURRENTDB_UNAVAILABLE = kurrentdb.unavailable;
  }
};
