import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DependencyCheck, HealthReply, SERVICE_NAMES, ServiceName, healthSubject, toErrorReply } from '@stagecraft/contracts';
import { MessageBus, Requester, connectNatsBus, createRequester } from '@stagecraft/messaging';
import { Host, checkNats, redactAddress, startHost } from '@stagecraft/service-shell';
import { cliConfig } from '../cli-config';
import { EXIT, ExitCode } from '../exit-codes';
import { allServices } from '../services';
import { formatTable } from '../table';

export interface HealthFlags {
  natsUrl?: string;
  store?: string;
  timeout: number;
  json?: boolean;
}

export interface HealthRow {
  service: ServiceName;
  /** It answered and none of its required dependencies is down. */
  up: boolean;
  latencyMs: number;
  reply?: HealthReply;
  error?: string;
}

/** One dependency as every service that uses it saw it: down if any saw it down. */
export type DependencyRow = DependencyCheck & { seenBy: string[] };

export interface HealthReport {
  services: HealthRow[];
  dependencies: DependencyRow[];
}

/** Asks every service at once; a service that fails to answer is down, with the reason and where it was asked. */
export async function checkHealth(requester: Requester, timeoutMs: number, via = 'the in-process bus'): Promise<HealthRow[]> {
  return Promise.all(
    SERVICE_NAMES.map(async (service): Promise<HealthRow> => {
      const started = performance.now();
      try {
        const reply = (await requester.request(healthSubject(service), {}, { timeoutMs })) as HealthReply;
        return { service, up: reply.status !== 'down', latencyMs: performance.now() - started, reply };
      } catch (error) {
        const { code, message } = toErrorReply(error);
        return { service, up: false, latencyMs: performance.now() - started, error: `${code}: ${message} (via ${via})` };
      }
    }),
  );
}

/** The dependencies the replies name, one row per dependency and address; `own` adds checks made by this command. */
export function dependencyRows(rows: readonly HealthRow[], own: readonly DependencyCheck[] = []): DependencyRow[] {
  const byKey = new Map<string, DependencyRow>();
  const add = (check: DependencyCheck, who: string) => {
    const key = `${check.name} ${check.address}`;
    const seen = byKey.get(key);
    if (!seen) return void byKey.set(key, { ...check, seenBy: [who] });
    seen.seenBy.push(who);
    if (seen.ok && !check.ok) Object.assign(seen, { ok: false, detail: check.detail });
    seen.required ||= check.required;
    seen.latencyMs = Math.max(seen.latencyMs, check.latencyMs);
  };
  for (const check of own) add(check, 'stagecraft health');
  for (const row of rows) for (const check of row.reply?.dependencies ?? []) add(check, row.service);
  const order = { store: 0, nats: 1, model: 2 } as const;
  return [...byKey.values()].sort((a, b) => order[a.name] - order[b.name] || a.address.localeCompare(b.address));
}

/** 0 when every service answers and every required dependency is up (warnings allowed); 3 otherwise. */
export function healthExitCode(report: HealthReport): ExitCode {
  const down = report.services.some((r) => !r.up) || report.dependencies.some((d) => !d.ok && d.required);
  return down ? EXIT.unreachable : EXIT.done;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const stateOf = (check: Pick<DependencyCheck, 'ok' | 'required'>) => (check.ok ? 'up' : check.required ? 'DOWN' : 'warning');
const cell = (check: DependencyCheck | undefined) => (check ? `${stateOf(check)} ${ms(check.latencyMs)}` : '-');

export function formatHealth(rows: HealthRow[], dependencies: DependencyRow[] = dependencyRows(rows)): string {
  const services = formatTable(
    ['SERVICE', 'STATUS', 'TRANSPORT', 'STORE', 'NATS', 'MODEL', 'PID', 'LATENCY'],
    rows.map((r) => {
      const dep = (name: DependencyCheck['name']) => r.reply?.dependencies.find((d) => d.name === name);
      return [
        r.service,
        r.reply ? (r.reply.status === 'ok' ? 'up' : r.reply.status === 'degraded' ? 'up (warning)' : 'DOWN') : `DOWN (${r.error})`,
        r.reply?.transport ?? '-',
        cell(dep('store')),
        cell(dep('nats')),
        cell(dep('model')),
        r.reply ? String(r.reply.pid) : '-',
        // No request was made when the command could not reach the system at all.
        r.reply || r.latencyMs > 0 ? ms(r.latencyMs) : '-',
      ];
    }),
  );
  if (dependencies.length === 0) return services;
  const deps = formatTable(
    ['DEPENDENCY', 'ADDRESS', 'STATE', 'LATENCY', 'DETAIL'],
    dependencies.map((d) => [
      d.name,
      d.address,
      d.ok ? 'up' : d.required ? 'DOWN' : 'warning (not required)',
      ms(d.latencyMs),
      d.detail ?? '',
    ]),
  );
  return `${services}\n\n${deps}`;
}

/**
 * `stagecraft health`: every service and every dependency it reports, over NATS when a URL is given,
 * otherwise for the embedded system started here (so the store is the one this command would use).
 */
export async function healthCommand(flags: HealthFlags): Promise<number> {
  const config = cliConfig(flags);
  const print = (report: HealthReport) =>
    process.stdout.write(flags.json ? `${JSON.stringify(report)}\n` : `${formatHealth(report.services, report.dependencies)}\n`);
  let bus: MessageBus;
  let host: Host | null = null;
  const own: DependencyCheck[] = [];
  /** A dependency this command could not reach itself: every service is down behind it. */
  const unreachable = (dependency: DependencyCheck, message: string): number => {
    const error = `${dependency.name === 'nats' ? 'NATS' : dependency.name} at ${dependency.address} unreachable`;
    print({
      services: SERVICE_NAMES.map((service) => ({ service, up: false, latencyMs: 0, error })),
      dependencies: [{ ...dependency, seenBy: ['stagecraft health'] }],
    });
    // Connection errors already name the address; say it once.
    process.stderr.write(`stagecraft: ${message.includes(dependency.address) ? message : `${error}: ${message}`}\n`);
    return EXIT.unreachable;
  };
  const started = performance.now();
  if (config.natsUrl) {
    const address = redactAddress(config.natsUrl);
    try {
      bus = await connectNatsBus({ servers: config.natsUrl, auth: config.natsAuth }, 'stagecraft-health');
    } catch (error) {
      const { message } = toErrorReply(error);
      const check = { name: 'nats', ok: false, required: true, address, detail: message, latencyMs: performance.now() - started } as const;
      return unreachable(check, message);
    }
    own.push(await checkNats(bus, address));
  } else {
    try {
      host = await startHost({
        definitions: allServices({ resume: false }),
        transport: 'inproc',
        store: config.store,
        config,
        env: { ...process.env, STAGECRAFT_STORE: config.store },
      });
    } catch (error) {
      const reply = toErrorReply(error);
      // A bad setting is a usage error (exit 2); anything else kept the services from reaching their store.
      if (reply.code === 'VALIDATION' || reply.code === 'CONFIGURATION') throw error;
      const address = redactAddress(config.store);
      const check = {
        name: 'store',
        ok: false,
        required: true,
        address,
        detail: reply.message,
        latencyMs: performance.now() - started,
      } as const;
      return unreachable(check, reply.message);
    }
    bus = host.ports.bus;
  }
  try {
    const requester = createRequester(bus, { prefix: config.prefix, newId: randomUUID, timeoutMs: flags.timeout });
    const services = await checkHealth(requester, flags.timeout, config.natsUrl ? redactAddress(config.natsUrl) : 'the in-process bus');
    const report = { services, dependencies: dependencyRows(services, own) };
    print(report);
    return healthExitCode(report);
  } finally {
    await (host ? host.close() : bus.close());
  }
}
