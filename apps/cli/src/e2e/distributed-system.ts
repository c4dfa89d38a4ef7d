import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import { EventStore, createSqliteEventStore } from '@stagecraft/event-store';
import { MessageBus, Requester, connectNatsBus, createRequester } from '@stagecraft/messaging';
import { NatsServerHandle, ServiceProcess, startNatsServer, startServiceProcesses } from '@stagecraft/testing';

export interface DistributedSystem {
  /** Mutable: a test may restart the server on the same port. */
  nats: NatsServerHandle;
  /** Mutable: a test may replace a process it killed. */
  services: ServiceProcess[];
  bus: MessageBus;
  requester: Requester;
  /** The sqlite file the six processes share, opened by the test too. */
  store: EventStore;
  /** The environment a service process gets, for starting one again. */
  envFor(healthPort: number): Record<string, string>;
  /** Stops everything and returns the service processes' exit codes. */
  stop(): Promise<(number | null)[]>;
}

/**
 * The distributed deployment for an e2e test: a nats-server, the six apps as OS processes sharing
 * one sqlite file, and a NATS client and store handle for the test itself.
 */
export async function startDistributedSystem(options: {
  prefix: string;
  storePath: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}): Promise<DistributedSystem> {
  const nats = await startNatsServer();
  const envFor = (healthPort: number): Record<string, string> => ({
    NATS_URL: nats.url,
    STAGECRAFT_STORE: `sqlite:${options.storePath}`,
    STAGECRAFT_SUBJECT_PREFIX: options.prefix,
    STAGECRAFT_HEALTH_PORT: String(healthPort),
    // Projects live next to the store unless a test says otherwise.
    STAGECRAFT_PROJECT_ROOTS: dirname(options.storePath),
    ...options.env,
  });
  const services = await startServiceProcesses((_name, healthPort) => envFor(healthPort));
  const bus = await connectNatsBus(nats.url, `${options.prefix}-test`);
  const requester = createRequester(bus, { prefix: options.prefix, newId: randomUUID, timeoutMs: options.timeoutMs ?? 10_000 });
  const store = createSqliteEventStore({ path: options.storePath });
  const system: DistributedSystem = {
    nats,
    services,
    bus,
    requester,
    store,
    envFor,
    async stop() {
      await bus.close();
      await store.close();
      const codes = await Promise.all(system.services.map((s) => s.stop()));
      await system.nats.stop();
      return codes;
    },
  };
  return system;
}
