import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REQUEST_SUBJECTS, ServiceName, withPrefix } from '@stagecraft/contracts';
import { EventStore, createSqliteEventStore } from '@stagecraft/event-store';
import { MessageBus, NatsTarget, Requester, connectNatsBus, createRequester, runEventsStreamName } from '@stagecraft/messaging';
import {
  NatsServerHandle,
  NatsServerOptions,
  REPO_ROOT,
  SERVICE_APPS,
  ServiceProcess,
  startNatsServer,
  startServiceProcesses,
} from '@stagecraft/testing';

export interface DistributedSystem {
  /** Mutable: a test may restart the server on the same port (`restartNats`). Its `url` signs in as the clients' role. */
  nats: NatsServerHandle;
  /** Mutable: a test may replace a process it killed. */
  services: ServiceProcess[];
  /** The test's own connection, as the `harness` role (see `HARNESS`). */
  bus: MessageBus;
  requester: Requester;
  /** The sqlite file the six processes share, opened by the test too. */
  store: EventStore;
  /** Where NATS is and the clients' identity there, for a client the test connects itself. */
  clients: NatsTarget;
  /** The shipped server configuration as this system runs it (its prefix), and the passwords of every role. */
  natsConfig: { file: string; passwords: Record<string, string> };
  /** The environment a service process gets (its own NATS identity included), for starting one again. */
  envFor(service: ServiceName, healthPort: number): Record<string, string>;
  /** Stops the server and starts it again on the same port with the same configuration. */
  restartNats(): Promise<void>;
  /** Stops everything and returns the service processes' exit codes. */
  stop(): Promise<(number | null)[]>;
}

/** The NATS configuration the deployments ship (docker-compose.yml and the Kubernetes infra component). */
export const SHIPPED_NATS_CONFIG = join(REPO_ROOT, 'deploy', 'k8s', 'infra', 'nats.conf');
/** Every user of the shipped file: the server refuses to start without each one's password. */
export const NATS_ROLES = [...SERVICE_APPS, 'stagecraft-host', 'clients'] as const;

/**
 * The shipped configuration for another subject prefix, as its header tells an operator to make it:
 * the prefix of subjects, of the run feed's stream and of the lease bucket replaced.
 */
export function natsConfigForPrefix(text: string, prefix: string): string {
  return text
    .replaceAll('"stagecraft.', `"${prefix}.`)
    .replaceAll('STAGECRAFT_RUN_EVENTS', runEventsStreamName(prefix))
    .replaceAll('stagecraft_leases', `${prefix.replace(/\./g, '_')}_leases`);
}

/**
 * The test's own role, added to the shipped users only here: the e2e suites call every service subject
 * directly (the fuzz suite sends hostile requests to each) and read the run feed, which no shipped role
 * may do whole. It never subscribes to `>`, and answers nothing.
 */
function harnessUser(prefix: string, password: string): string {
  const stream = runEventsStreamName(prefix);
  const publish = [
    ...REQUEST_SUBJECTS.map((s) => withPrefix(prefix, s)),
    '$JS.API.INFO',
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.*`,
    `$JS.API.CONSUMER.DELETE.${stream}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
  ];
  const subscribe = ['run.>', 'tool.>'].map((s) => withPrefix(prefix, s)).concat('_INBOX_harness.>');
  const list = (xs: string[]) => xs.map((x) => JSON.stringify(x)).join(', ');
  return `    { user: harness, password: "${password}", permissions: { publish: { allow: [${list(publish)}] }, subscribe: { allow: [${list(subscribe)}], deny: ["${withPrefix(prefix, 'tool.execute')}"] } } }\n`;
}

/** Writes the shipped configuration for `prefix`, with the harness role, and makes a password for every role. */
export function writeNatsConfig(
  dir: string,
  prefix: string,
): { file: string; passwords: Record<string, string>; env: Record<string, string> } {
  // nats-server parses a variable's value as configuration: a password must start with a letter.
  const passwords = Object.fromEntries([...NATS_ROLES, 'harness'].map((role) => [role, `p${randomBytes(18).toString('hex')}`]));
  const shipped = natsConfigForPrefix(readFileSync(SHIPPED_NATS_CONFIG, 'utf8'), prefix);
  const marker = '  users = [\n';
  if (!shipped.includes(marker)) throw new Error(`${SHIPPED_NATS_CONFIG} has no "users = [" list to add the harness role to`);
  const file = join(dir, 'nats.conf');
  writeFileSync(file, shipped.replace(marker, marker + harnessUser(prefix, passwords['harness'])));
  // The variables the shipped file reads: NATS_<ROLE>_PASSWORD.
  const env = Object.fromEntries(NATS_ROLES.map((role) => [`NATS_${role.toUpperCase().replace(/-/g, '_')}_PASSWORD`, passwords[role]]));
  return { file, passwords, env };
}

/** The test's own connection, as the `harness` role. */
export function connectHarness(address: string, passwords: Record<string, string>, prefix: string): Promise<MessageBus> {
  return connectNatsBus(
    { servers: address, auth: { user: 'harness', pass: passwords['harness'], inboxPrefix: '_INBOX_harness' } },
    `${prefix}-test`,
  );
}

/** A refusal in a suite that meant none shows where the shipped permissions fall short: printed at stop. */
export function reportRefusals(nats: NatsServerHandle, label: string): void {
  const refused = nats
    .log()
    .split('\n')
    .filter((l) => /Violation|Authorization/i.test(l));
  if (refused.length > 0)
    process.stderr.write(
      `nats-server refused (${label}):\n${[...new Set(refused.map((l) => l.replace(/^.*? - cid:\d+ - /, '')))].join('\n')}\n`,
    );
}

/**
 * The distributed deployment for an e2e test: a nats-server with the shipped configuration (one user
 * per service, the clients' role, nobody anonymous), the six apps as OS processes sharing one sqlite
 * file, each signed in as itself, and a NATS client and store handle for the test itself.
 */
export async function startDistributedSystem(options: {
  prefix: string;
  storePath: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}): Promise<DistributedSystem> {
  const configDir = mkdtempSync(join(tmpdir(), 'stagecraft-nats-conf-'));
  const config = writeNatsConfig(configDir, options.prefix);
  const natsOptions: NatsServerOptions = { config: config.file, env: config.env };
  const asClients = (handle: NatsServerHandle): NatsServerHandle => ({
    ...handle,
    url: `nats://clients:${config.passwords['clients']}@127.0.0.1:${handle.port}`,
  });
  const nats = await startNatsServer(natsOptions);
  const address = `nats://127.0.0.1:${nats.port}`;
  const envFor = (service: ServiceName, healthPort: number): Record<string, string> => ({
    NATS_URL: address,
    NATS_USER: service,
    NATS_PASSWORD: config.passwords[service],
    STAGECRAFT_STORE: `sqlite:${options.storePath}`,
    STAGECRAFT_SUBJECT_PREFIX: options.prefix,
    STAGECRAFT_HEALTH_PORT: String(healthPort),
    // Projects live next to the store unless a test says otherwise.
    STAGECRAFT_PROJECT_ROOTS: dirname(options.storePath),
    ...options.env,
  });
  const services = await startServiceProcesses((name, healthPort) => envFor(name as ServiceName, healthPort));
  const bus = await connectHarness(address, config.passwords, options.prefix);
  const requester = createRequester(bus, { prefix: options.prefix, newId: randomUUID, timeoutMs: options.timeoutMs ?? 10_000 });
  const store = createSqliteEventStore({ path: options.storePath });
  const system: DistributedSystem = {
    nats: asClients(nats),
    services,
    bus,
    requester,
    store,
    clients: { servers: address, auth: { user: 'clients', pass: config.passwords['clients'], inboxPrefix: '_INBOX_clients' } },
    natsConfig: { file: config.file, passwords: config.passwords },
    envFor,
    async restartNats() {
      const { port } = system.nats;
      await system.nats.stop();
      system.nats = asClients(await startNatsServer({ ...natsOptions, port }));
    },
    async stop() {
      await bus.close();
      await store.close();
      const codes = await Promise.all(system.services.map((s) => s.stop()));
      reportRefusals(system.nats, options.prefix);
      await system.nats.stop();
      rmSync(configDir, { recursive: true, force: true });
      return codes;
    },
  };
  return system;
}
