import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STAGECRAFT_VERSION, ServiceName, StagecraftError } from '@stagecraft/contracts';
import { openEventStore } from '@stagecraft/event-store';
import { createRequester } from '@stagecraft/messaging';
import {
  DependencyTargets,
  Host,
  LifecyclePhase,
  ShellConfig,
  checkDependencies,
  dependencyTargets,
  notServingChecks,
  startHost,
  startProbeServer,
  within,
} from '@stagecraft/service-shell';
import { metricsEndpoint } from '@stagecraft/telemetry';
import { cliConfig } from '../cli-config';
import { allServices } from '../services';
import { mountConsole } from '../console/mount';

export interface ServeFlags {
  services?: ServiceName[];
  transport?: 'inproc' | 'nats';
  natsUrl?: string;
  store?: string;
  /** Also serve the console API here (STAGECRAFT_API_PORT); 0 or absent: not served. */
  apiPort?: number;
  apiHost?: string;
}

/** The console API's port and address: the flags, else STAGECRAFT_API_PORT / STAGECRAFT_API_HOST; null when it is off. */
export function apiPlan(
  flags: Pick<ServeFlags, 'apiPort' | 'apiHost'>,
  env: Readonly<Record<string, string | undefined>>,
): { port: number; host: string } | null {
  const raw = (env['STAGECRAFT_API_PORT'] ?? '').trim();
  const port = flags.apiPort ?? (raw === '' ? 0 : Number(raw));
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new StagecraftError('VALIDATION', `invalid configuration: STAGECRAFT_API_PORT: '${raw}' is not a port (0-65535)`, [
      { path: ['STAGECRAFT_API_PORT'], message: 'a port, 0-65535 (0: off)' },
    ]);
  if (port === 0) return null;
  return { port, host: flags.apiHost ?? (env['STAGECRAFT_API_HOST']?.trim() || '127.0.0.1') };
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

/**
 * Runs services in this process until SIGINT or SIGTERM, with `/healthz`, `/readyz` and `/metrics` (see
 * `probePlan`). Over NATS it waits for the server up to STAGECRAFT_NATS_CONNECT_TIMEOUT_MS (not ready
 * meanwhile, each failed attempt said on stderr), and a signal stops it within STAGECRAFT_SHUTDOWN_TIMEOUT_MS
 * with exit 0, whatever NATS does.
 */
export async function serveCommand(flags: ServeFlags): Promise<void> {
  const config = cliConfig(flags);
  const transport = serveTransport(flags, config.natsUrl);
  const api = apiPlan(flags, process.env);
  // Health replies name the addresses from this environment, so the flags go into it.
  const env = { ...process.env, STAGECRAFT_STORE: config.store, ...(transport === 'nats' ? { NATS_URL: config.natsUrl } : {}) };
  let phase: LifecyclePhase = { kind: 'connecting', address: config.natsUrl ?? 'in-process' };
  let targets: DependencyTargets = {};
  const readiness = () => (phase.kind === 'serving' ? checkDependencies(targets) : Promise.resolve(notServingChecks(phase)));
  const probes = await openProbes(probePlan(process.env, config), config.healthHost, readiness);

  let host: Host | undefined;
  let stopping = false;
  const waiting = new AbortController();
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    phase = { kind: 'stopping' };
    waiting.abort();
    const graceMs = Math.floor(config.shutdownTimeoutMs / 2);
    const onAbandoned = (abandoned: string[]) =>
      process.stderr.write(`stagecraft: stopped without answering ${abandoned.join(', ')} (in flight after ${graceMs} ms)\n`);
    const closing = host?.close({ graceMs, onAbandoned }) ?? Promise.resolve();
    if (!(await within(config.shutdownTimeoutMs, closing)))
      process.stderr.write(
        `stagecraft: stop took longer than ${config.shutdownTimeoutMs} ms (STAGECRAFT_SHUTDOWN_TIMEOUT_MS); leaving the rest\n`,
      );
    probes?.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());

  try {
    host = await startHost({
      definitions: allServices(),
      only: flags.services,
      transport,
      natsUrl: config.natsUrl,
      natsAuth: config.natsAuth,
      store: config.store,
      config,
      env,
      connectRetry: {
        budgetMs: config.natsConnectTimeoutMs,
        signal: waiting.signal,
        onRetry: (failed) => {
          phase = { kind: 'connecting', address: failed.servers, lastAttempt: failed };
          process.stderr.write(
            `stagecraft: NATS at ${failed.servers} not reachable (${failed.error}), attempt ${failed.attempt}; trying again in ${failed.nextDelayMs} ms\n`,
          );
        },
      },
    });
  } catch (error) {
    if (stopping) return new Promise<never>(() => undefined); // `stop` exits
    probes?.close();
    throw error;
  }
  const services = host.running.services;
  targets = dependencyTargets({
    services: services.map((s) => ({ name: s.name, usesStore: s.usesStore })),
    store: host.ports.store,
    storeAddress: config.store,
    bus: host.ports.bus,
    natsAddress: config.natsUrl,
    env,
  });
  if (api) {
    const requester = createRequester(host.ports.bus, { prefix: config.prefix, newId: randomUUID, timeoutMs: config.requestTimeoutMs });
    const note = (line: string) => process.stdout.write(`stagecraft: ${line}\n`);
    await mountConsole({
      log: host.ports.store ?? openEventStore(config.store),
      requester,
      port: api.port,
      host: api.host,
      env: process.env,
      version: STAGECRAFT_VERSION,
      note,
    });
  }
  phase = { kind: 'serving' };
  const where = transport === 'nats' ? `nats (${config.natsUrl})` : 'inproc';
  const probeNote = probes ? `, probes on http://${config.healthHost}:${(probes.address() as AddressInfo).port} (/healthz, /readyz)` : '';
  process.stdout.write(`stagecraft serving ${services.map((s) => s.name).join(', ')} on ${where}, store ${config.store}${probeNote}\n`);
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
