import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GenericContainer, StartedNetwork, StartedTestContainer, Wait, getContainerRuntimeClient } from 'testcontainers';
import { HealthReply, SERVICE_NAMES } from '@stagecraft/contracts';
import { RecordedRequest, ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT, SERVICE_APPS, eventually, readWriteAgentScript, runCli } from '@stagecraft/testing';
import { containersImage } from './availability';
import { Forwarder, forwardFromGateway, networkGateway } from './host-gateway';
import { StagecraftContainer, containerSession } from './session';

/**
 * The distributed deployment as compose runs it: a NATS container and the six services, each in a
 * container of the one image, on one network; the CLI and the scripted model outside, on the host.
 */
const found = containersImage('distributed suite');

type ServiceName = (typeof SERVICE_APPS)[number];
const prefix = 'containers';
/** Services that keep events: they share one SQLite file on a bind mount. */
const STORED: ServiceName[] = ['conversation', 'memory', 'tool-execution'];
const MODEL: ServiceName[] = ['conversation', 'qa'];
const WORKSPACE: ServiceName[] = ['conversation', 'tool-execution', 'qa'];
const NOTES = 'Sample project notes.\n';

(('notRun' in found ? describe.skip : describe) as jest.Describe)('six services in containers over a NATS container', () => {
  const { image, natsImage } = found as { image: string; natsImage: string };
  const session = containerSession('distributed suite');
  const services = new Map<ServiceName, StartedTestContainer>();
  let network: StartedNetwork;
  let nats: StartedTestContainer;
  let server: ScriptedModelServer;
  let forwarder: Forwarder;
  let modelUrl: string;
  let dir: string;
  let project: string;
  /** When set, the next `act` request is answered only after a minute: time to kill the container that asked. */
  let holdNextAct = false;
  let held: RecordedRequest | undefined;

  /** Every path the uid-1000 services write, writable for them whatever uid runs the test. */
  function openToContainers(path: string) {
    chmodSync(path, 0o777);
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory()) openToContainers(join(path, entry.name));
      else chmodSync(join(path, entry.name), 0o666);
    }
  }

  function serviceContainer(name: ServiceName): GenericContainer {
    const stored = STORED.includes(name);
    const workspace = WORKSPACE.includes(name);
    return new StagecraftContainer(image)
      .withReadOnlyRootFilesystem()
      .withTmpFs({ '/tmp': 'rw,mode=1777' })
      .withCommand(['node', `apps/${name}/dist/main.js`])
      .withNetwork(network)
      .withNetworkAliases(name)
      .withEnvironment({
        NATS_URL: 'nats://nats:4222',
        STAGECRAFT_SUBJECT_PREFIX: prefix,
        STAGECRAFT_STORE: stored ? 'sqlite:/data/events.db' : 'memory:',
        LOG_LEVEL: 'warn',
        // Memory mounts no project but answers only for the projects under the roots.
        ...(workspace || name === 'memory' ? { STAGECRAFT_PROJECT_ROOTS: '/workspace' } : {}),
        ...(MODEL.includes(name) ? { OPENAI_BASE_URL: modelUrl, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' } : {}),
      })
      .withBindMounts([
        ...(stored ? [{ source: join(dir, 'data'), target: '/data' }] : []),
        // QA only reads the project.
        ...(workspace ? [{ source: project, target: '/workspace', mode: name === 'qa' ? ('ro' as const) : ('rw' as const) }] : []),
      ])
      .withExposedPorts(8080)
      .withWaitStrategy(Wait.forHttp('/readyz', 8080).forStatusCode(200))
      .withStartupTimeout(90_000);
  }

  async function startService(name: ServiceName) {
    services.set(name, await session.start(serviceContainer(name)));
  }

  const natsUrl = () => `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;

  async function chat(message: string) {
    const args = ['chat', message, '--root', '/workspace', '--mode', 'agent', '--reasoning', '--json', '--nats-url', natsUrl()];
    const { code, stdout, stderr } = await runCli(args, { STAGECRAFT_SUBJECT_PREFIX: prefix }, 120_000);
    const last = stdout.trim().split('\n').pop() ?? '';
    const result = last.startsWith('{') ? (JSON.parse(last) as { runId: string; deliveryState?: string }) : undefined;
    return { code, stderr, result };
  }

  async function health() {
    const { code, stdout } = await runCli(['health', '--nats-url', natsUrl(), '--json'], { STAGECRAFT_SUBJECT_PREFIX: prefix });
    const report = stdout.startsWith('{')
      ? (JSON.parse(stdout) as { services: { service: string; up: boolean; reply?: HealthReply }[] })
      : undefined;
    return { code, rows: report?.services ?? [] };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-containers-'));
    project = join(dir, 'workspace');
    mkdirSync(join(dir, 'data'));
    cpSync(join(REPO_ROOT, 'deploy/sample-project'), project, { recursive: true });
    openToContainers(dir);
    server = await startScriptedModelServer({
      script: (request) => {
        const reply = readWriteAgentScript(request);
        if (!holdNextAct || request.stage !== 'act') return reply;
        holdNextAct = false;
        held = request;
        return { ...reply, delayMs: 60_000 };
      },
    });
    network = await session.network();
    nats = await session.start(
      // Ready when its monitoring port says so: a restart is waited for the same way (a log line
      // from before the restart would not do).
      new GenericContainer(natsImage)
        .withCommand(['-js', '-sd', '/data', '-m', '8222'])
        .withNetwork(network)
        .withNetworkAliases('nats')
        .withExposedPorts(4222, 8222)
        .withWaitStrategy(Wait.forHttp('/healthz', 8222).forStatusCode(200)),
    );
    // The model server listens on the host's loopback; containers reach it through the network's gateway.
    const gateway = await networkGateway(network);
    forwarder = await forwardFromGateway(gateway, { host: '127.0.0.1', port: Number(new URL(server.url).port) });
    modelUrl = `http://${gateway}:${forwarder.port}/v1`;
    await Promise.all(SERVICE_APPS.map(startService));
  }, 240_000);

  afterAll(async () => {
    const { left } = await session.close();
    await forwarder?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
    expect(left).toBe(0);
  }, 120_000);

  it('the CLI outside runs a whole run to DONE; the tool container writes the mounted project', async () => {
    const { code, stderr, result } = await chat('Write notes about this project');
    expect({ code, stderr, deliveryState: result?.deliveryState }).toEqual({ code: 0, stderr: '', deliveryState: 'DONE' });
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe(NOTES);
    const stages = server.requests.filter((r) => r.headers['x-stagecraft-run-id'] === result?.runId).map((r) => r.stage);
    expect(new Set(stages)).toEqual(new Set(['warmup', 'act', 'tool_followup', 'delivery_check', 'qa_review']));
  }, 150_000);

  it('`stagecraft health` shows the six services up over NATS, the stored ones on SQLite', async () => {
    const { code, rows } = await health();
    expect(code).toBe(0);
    expect(rows.map((r) => [r.service, r.up, r.reply?.transport])).toEqual(SERVICE_NAMES.map((s) => [s, true, 'nats']));
    const onSqlite = rows.filter((r) => r.reply?.store === 'sqlite').map((r) => r.service);
    expect(onSqlite.sort()).toEqual([...STORED].sort());
  }, 60_000);

  it('a conversation container killed mid-run and started again finishes the run', async () => {
    rmSync(join(project, 'NOTES.md'), { force: true });
    holdNextAct = true;
    held = undefined;
    const running = chat('Write the notes again');
    const request = await eventually(async () => held, 'the act request to hold', { timeoutMs: 60_000, intervalMs: 100 });
    const runId = request.headers['x-stagecraft-run-id'];

    const killed = services.get('conversation')!;
    const client = await getContainerRuntimeClient();
    const handle = client.container.dockerode.getContainer(killed.getId());
    await handle.kill({ signal: 'SIGKILL' });
    const state = (await handle.inspect()).State;
    expect({ running: state.Running, exitCode: state.ExitCode }).toEqual({ running: false, exitCode: 137 });
    // Started again as `restart: unless-stopped` would: the same container, a new process.
    await killed.restart();

    const { code, stderr, result } = await running;
    expect({ code, stderr, runId: result?.runId, deliveryState: result?.deliveryState }).toEqual({
      code: 0,
      stderr: '',
      runId,
      deliveryState: 'DONE',
    });
    // The held step was asked again by the new process; the file was written once, after it.
    const acts = server.requests.filter((r) => r.headers['x-stagecraft-run-id'] === runId && r.stage === 'act');
    expect(acts.length).toBe(2);
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe(NOTES);
  }, 180_000);

  it('after the NATS container restarts, the services reconnect and a new run completes', async () => {
    await nats.restart();
    const rows = await eventually(
      async () => {
        const { rows } = await health();
        return rows.length === SERVICE_NAMES.length && rows.every((r) => r.up) ? rows : undefined;
      },
      'six services up after the NATS restart',
      { timeoutMs: 90_000, intervalMs: 1000 },
    );
    expect(rows.map((r) => r.service)).toEqual([...SERVICE_NAMES]);
    rmSync(join(project, 'NOTES.md'), { force: true });
    const { code, stderr, result } = await chat('Write the notes after the restart');
    expect({ code, stderr, deliveryState: result?.deliveryState }).toEqual({ code: 0, stderr: '', deliveryState: 'DONE' });
    expect(existsSync(join(project, 'NOTES.md'))).toBe(true);
  }, 180_000);
});
