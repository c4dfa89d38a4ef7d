import { ShellConfig, loadShellConfig } from '@stagecraft/service-shell';

/**
 * Flags win over the environment; the environment is validated like a service's. A terminal command
 * prints its own progress and failures in its own words, so service logs stay silent unless
 * LOG_LEVEL asks for them (then they go to stderr as JSON lines, as a service writes them).
 */
export function cliConfig(flags: { natsUrl?: string; store?: string; prefix?: string }): ShellConfig {
  const env = { ...process.env };
  if (flags.natsUrl) env['NATS_URL'] = flags.natsUrl;
  if (flags.store) env['STAGECRAFT_STORE'] = flags.store;
  if (flags.prefix !== undefined) env['STAGECRAFT_SUBJECT_PREFIX'] = flags.prefix;
  if (!env['LOG_LEVEL']) env['LOG_LEVEL'] = 'silent';
  return loadShellConfig(env);
}
