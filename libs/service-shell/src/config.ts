import { z } from 'zod';
import { DEFAULT_SUBJECT_PREFIX, StagecraftError, issuesFromZod } from '@stagecraft/contracts';

const SubjectPrefix = z.string().regex(/^([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)?$/, 'dot-separated tokens of letters, digits, "_" or "-"');
const Port = z.coerce.number().int().min(0).max(65_535);

/** The environment every service process reads, once, at start-up. */
export const ShellEnv = z.object({
  NATS_URL: z.string().regex(/^(nats|tls):\/\/[^\s]+$/, 'a nats:// or tls:// URL (several separated by commas)').optional(),
  STAGECRAFT_STORE: z.string().regex(/^(memory:|sqlite:.+|kurrentdb(\+discover)?:\/\/.+|esdb(\+discover)?:\/\/.+)$/, 'memory:, sqlite:PATH or kurrentdb://…').default('sqlite:.stagecraft/events.db'),
  STAGECRAFT_SUBJECT_PREFIX: SubjectPrefix.default(DEFAULT_SUBJECT_PREFIX),
  STAGECRAFT_HEALTH_PORT: Port.default(8080),
  STAGECRAFT_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(30_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type ShellEnv = z.infer<typeof ShellEnv>;

export interface ShellConfig {
  natsUrl?: string;
  store: string;
  prefix: string;
  healthPort: number;
  requestTimeoutMs: number;
  logLevel: ShellEnv['LOG_LEVEL'];
}

/** Parses the environment; a bad variable is an error that names it. */
export function loadShellConfig(env: Record<string, string | undefined>): ShellConfig {
  // An empty variable means unset, as in most shells and container runtimes.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = ShellEnv.safeParse(present);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error);
    const detail = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new StagecraftError('VALIDATION', `invalid configuration: ${detail}`, issues);
  }
  const e = parsed.data;
  return {
    natsUrl: e.NATS_URL,
    store: e.STAGECRAFT_STORE,
    prefix: e.STAGECRAFT_SUBJECT_PREFIX,
    healthPort: e.STAGECRAFT_HEALTH_PORT,
    requestTimeoutMs: e.STAGECRAFT_REQUEST_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
  };
}
