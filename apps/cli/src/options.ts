import { SERVICE_NAMES, ServiceName } from '@stagecraft/contracts';
import { ShellConfig, loadShellConfig } from '@stagecraft/service-shell';
import { InvalidArgumentError } from 'commander';

/** Flags win over the environment; the environment is validated like a service's. */
export function cliConfig(flags: { natsUrl?: string; store?: string; prefix?: string }): ShellConfig {
  const env = { ...process.env };
  if (flags.natsUrl) env['NATS_URL'] = flags.natsUrl;
  if (flags.store) env['STAGECRAFT_STORE'] = flags.store;
  if (flags.prefix !== undefined) env['STAGECRAFT_SUBJECT_PREFIX'] = flags.prefix;
  // A terminal command prints its own progress: service logs only when asked for with LOG_LEVEL.
  if (!env['LOG_LEVEL']) env['LOG_LEVEL'] = 'error';
  return loadShellConfig(env);
}

export function parseServices(value: string): ServiceName[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(SERVICE_NAMES as string[]).includes(n));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown service(s) ${unknown.join(', ')}; known: ${SERVICE_NAMES.join(', ')}`);
  return names as ServiceName[];
}

export function parseTransport(value: string): 'inproc' | 'nats' {
  if (value !== 'inproc' && value !== 'nats') throw new InvalidArgumentError('inproc or nats');
  return value;
}
