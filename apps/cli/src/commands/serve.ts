import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceName, StagecraftError } from '@stagecraft/contracts';
import { ShellConfig, checkDependencies, dependencyTargets, startHost, startProbeServer } from '@stagecraft/service-shell';
import { metricsEndpoint } from '@stagecraft/telemetry';
import { cliConfig } from '../cli-config';
import { allServices } from '../services';

export interface ServeFlags {
  services?: ServiceName[];
  transport?: 'inproc' | 'nats';
  natsUrl?: string;
  store?: string;
}

/**
 * `--transport` when given; otherwise a NATS URL (flag or NATS_URL) means NATS, as it does for every
 * other command. Asking for NATS without saying where it is is a usage error.
 */
export function serveTransport(flags: Pick<ServeFlags, 'transport'>, natsUrl: string | undefined): 'inproc' | 'nats' {
  const transport = flags.transport ?? (natsUrl ? 'nats' : 'inproc');
  if (transport === 'nats' && !natsUrl) {
    throw new StagecraftError('VALIDATION', '--transport nats needs --nats-url or NATS_URL', [
      { path: ['natsUrl'], message: 'required with --transport nats' },
    ]);
  }
  return transport;
}

/**
 * Where the probes listen: `STAGECRAFT_HEALTH_PORT` when set (0: no probes; a port in use stops the
 * process, as a container's probes must be where its manifest says). Unset, the default port is only
 * tried: on a developer's machine something else may hold it, and any free port does as well.
 */
export function probePlan(
  env: Readonly<Record<string, string | undefined>>,
  config: ShellConfig,
): { port: number; fallback: boolean } | null {
  const explicit = (env['STAGECRAFT_HEALTH_PORT'] ?? '').trim() !== '';
  if (explicit && config.healthPort === 0) return null;
  return { port: config.healthPort, fallback: !explicit };
}

/** Runs services in this process until SIGINT or SIGTERM, with `/healthz`, `/readyz` and `/metrics` (see `probePlan`). */
export async function serveCommand(flags: ServeFlags): Promise<void> {
  const config = cliConfig(flags);
  const transport = serveTransport(flags, config.natsUrl);
  // Health replies name the addresses from this environment, so the flags go into it.
  const env = { ...process.env, STAGECRAFT_STORE: config.store, ...(transport === 'nats' ? { NATS_URL: config.natsUrl } : {}) };
  const host = await startHost({
    definitions: allServices(),
    only: flags.services,
    transport,
    natsUrl: config.natsUrl,
    natsAuth: config.natsAuth,
    store: config.store,
    config,
    env,
  });
  const services = host.running.services;
  const targets = dependencyTargets({
    services: services.map((s) => ({ name: s.name, usesStore: s.usesStore })),
    store: host.ports.store,
    storeAddress: config.store,
    bus: host.ports.bus,
    natsAddress: config.natsUrl,
    env,
  });
  let probes: Server | null = null;
  try {
    probes = await openProbes(probePlan(process.env, config), config.healthHost, () => checkDependencies(targets));
  } catch (error) {
    await host.close();
    throw error;
  }
  const where = transport === 'nats' ? `nats (${config.natsUrl})` : 'inproc';
  const probeNote = probes ? `, probes on http://${config.healthHost}:${(probes.address() as AddressInfo).port} (/healthz, /readyz)` : '';
  process.stdout.write(`stagecraft serving ${services.map((s) => s.name).join(', ')} on ${where}, store ${config.store}${probeNote}\n`);

  const stop = async () => {
    probes?.close();
    await host.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

async function openProbes(
  plan: { port: number; fallback: boolean } | null,
  host: string,
  readiness: Parameters<typeof startProbeServer>[0]['readiness'],
): Promise<Server | null> {
  if (!plan) return null;
  const metrics = metricsEndpoint();
  try {
    return await startProbeServer({ port: plan.port, host, readiness, metrics });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!plan.fallback || code !== 'EADDRINUSE') {
      throw new StagecraftError(
        'UNAVAILABLE',
        `cannot serve probes on ${host}:${plan.port} (STAGECRAFT_HEALTH_PORT): ${(error as Error).message}`,
      );
    }
    const server = await startProbeServer({ port: 0, host, readiness, metrics });
    process.stderr.write(
      `stagecraft: probe port ${plan.port} is in use; probes on port ${(server.address() as AddressInfo).port} instead (set STAGECRAFT_HEALTH_PORT to choose, 0 for none)\n`,
    );
    return server;
  }
}
