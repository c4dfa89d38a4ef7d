import { EventStore, openEventStore } from '@stagecraft/event-store';
import { connectNatsBus } from '@stagecraft/messaging';
import { metricsEndpoint, stopTracing } from '@stagecraft/telemetry';
import { loadShellConfig } from './config';
import { composePorts } from './compose-ports';
import { ServiceDefinition } from './ports';
import { startProbeServer } from './probe-server';
import { checkDependencies, dependencyTargets } from './readiness';
import { startServices } from './start-services';

/**
 * The whole life of one service in the distributed deployment: read the environment (a bad
 * variable stops the process with a message naming it), connect, serve, stop on SIGTERM.
 */
export async function runServiceProcess(definition: ServiceDefinition, env: Record<string, string | undefined>): Promise<void> {
  let config;
  try {
    config = loadShellConfig(env);
    if (!config.natsUrl) throw new Error('invalid configuration: NATS_URL: required for a service process');
    // Any caller on the bus could otherwise name any directory of the host, "/" included.
    if (definition.touchesProjects && !config.projectRoots?.length) {
      throw new Error(
        'invalid configuration: STAGECRAFT_PROJECT_ROOTS: required for a service process that works on projects (the directories requests may name)',
      );
    }
  } catch (error) {
    process.stderr.write(`${definition.name}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const bus = await connectNatsBus({ servers: config.natsUrl, auth: config.natsAuth }, `stagecraft-${definition.name}`);
  const store: EventStore | null = definition.usesStore ? await openEventStore(config.store) : null;
  const ports = composePorts(bus, store, config, env, definition.name);
  const running = await startServices([definition], ports);
  const targets = dependencyTargets({
    services: [definition],
    store,
    storeAddress: config.store,
    bus,
    natsAddress: config.natsUrl,
    env,
  });
  const probes =
    config.healthPort > 0
      ? await startProbeServer({
          port: config.healthPort,
          host: config.healthHost,
          readiness: () => checkDependencies(targets),
          metrics: metricsEndpoint(),
        })
      : null;
  ports.logger.info({ nats: config.natsUrl, store: store?.kind ?? null, healthPort: config.healthPort }, 'service ready');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ports.logger.info({ signal }, 'service stopping');
    probes?.close();
    await running.close();
    await bus.close();
    await store?.close();
    // Spans still buffered are exported before the process ends.
    await stopTracing().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
