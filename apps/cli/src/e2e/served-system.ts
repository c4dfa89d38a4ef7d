import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EventStore, createSqliteEventStore } from '@stagecraft/event-store';
import { MessageBus, Requester, createRequester } from '@stagecraft/messaging';
import {
  NatsServerHandle,
  REPO_ROOT,
  ServiceProcess,
  exitOf,
  freePort,
  spawnProcess,
  startNatsServer,
  waitForHttp,
} from '@stagecraft/testing';
import { connectHarness, reportRefusals, writeNatsConfig } from './distributed-system';

export interface ServedSystem {
  /** Its `url` signs in as the clients' role. */
  nats: NatsServerHandle;
  /** Mutable: `restartHost` replaces it. */
  host: ServiceProcess;
  /** The test's own connection, as the `harness` role. */
  bus: MessageBus;
  requester: Requester;
  /** The host's sqlite file, opened by the test too. */
  store: EventStore;
  /** Stops the host and starts it again, `env` added to what it had (e.g. other project roots). */
  restartHost(env?: Record<string, string>): Promise<void>;
  /** Stops everything and returns the host's exit code. */
  stop(): Promise<number | null>;
}

/** `stagecraft serve --transport nats` as its own OS process, its output kept; resolves once `/readyz` answers 200. */
async function spawnServe(natsAddress: string, env: Record<string, string>): Promise<ServiceProcess> {
  const healthPort = await freePort();
  const cli = join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs');
  const host = spawnProcess('stagecraft serve', process.execPath, [cli, 'serve', '--transport', 'nats', '--nats-url', natsAddress], {
    ...env,
    STAGECRAFT_HEALTH_PORT: String(healthPort),
  });
  const { child } = host;
  const exitedEarly = exitOf(child).then((code) => {
    throw new Error(`stagecraft serve exited (${code}) before it was ready:\n${host.output()}`);
  });
  try {
    await Promise.race([waitForHttp(`http://127.0.0.1:${healthPort}/readyz`, 30_000), exitedEarly]);
  } catch (error) {
    await host.stop();
    throw error;
  }
  return host;
}

/**
 * The embedded deployment on NATS for an e2e test: a nats-server with the shipped configuration and ONE
 * `stagecraft serve --transport nats` process hosting the six services on one connection, signed in as
 * the shipped `stagecraft-host` role, its store a sqlite file the test opens too.
 */
export async function startServedSystem(options: {
  prefix: string;
  storePath: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}): Promise<ServedSystem> {
  const configDir = mkdtempSync(join(tmpdir(), 'stagecraft-nats-conf-'));
  const config = writeNatsConfig(configDir, options.prefix);
  const nats = await startNatsServer({ config: config.file, env: config.env });
  const address = `nats://127.0.0.1:${nats.port}`;
  const hostEnv = {
    NATS_USER: 'stagecraft-host',
    NATS_PASSWORD: config.passwords['stagecraft-host'],
    STAGECRAFT_STORE: `sqlite:${options.storePath}`,
    STAGECRAFT_SUBJECT_PREFIX: options.prefix,
    // Projects live next to the store unless a test says otherwise.
    STAGECRAFT_PROJECT_ROOTS: dirname(options.storePath),
    ...options.env,
  };
  let host: ServiceProcess;
  try {
    host = await spawnServe(address, hostEnv);
  } catch (error) {
    await nats.stop();
    throw error;
  }
  const bus = await connectHarness(address, config.passwords, options.prefix);
  const system: ServedSystem = {
    nats: { ...nats, url: `nats://clients:${config.passwords['clients']}@127.0.0.1:${nats.port}` },
    host,
    bus,
    requester: createRequester(bus, { prefix: options.prefix, newId: randomUUID, timeoutMs: options.timeoutMs ?? 10_000 }),
    store: createSqliteEventStore({ path: options.storePath }),
    async restartHost(env = {}) {
      await system.host.stop();
      Object.assign(hostEnv, env);
      system.host = await spawnServe(address, hostEnv);
    },
    async stop() {
      await bus.close();
      await system.store.close();
      const code = await system.host.stop();
      reportRefusals(nats, `${options.prefix}, stagecraft serve`);
      await nats.stop();
      rmSync(configDir, { recursive: true, force: true });
      return code;
    },
  };
  return system;
}
