import { delimiter, isAbsolute } from 'node:path';
import { z } from 'zod';
import { DEFAULT_SUBJECT_PREFIX, StagecraftError, issuesFromZod } from '@stagecraft/contracts';
import { DEFAULT_EVENT_STORE_URL } from '@stagecraft/event-store';
import { NatsAuth, natsTargetFromEnv } from '@stagecraft/messaging';

const SubjectPrefix = z.string().regex(/^([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)?$/, 'dot-separated tokens of letters, digits, "_" or "-"');
const Port = z.coerce.number().int().min(0).max(65_535);
/** One or more absolute directories, separated like PATH entries. */
const ProjectRoots = z
  .string()
  .transform((value) =>
    value
      .split(delimiter)
      .map((r) => r.trim())
      .filter((r) => r.length > 0),
  )
  .refine((roots) => roots.every((r) => isAbsolute(r)), { message: 'entries must be absolute paths' });

/** The environment every service process reads, once, at start-up. */
export const ShellEnv = z.object({
  NATS_URL: z
    .string()
    .regex(/^(nats|tls):\/\/[^\s]+$/, 'a nats:// or tls:// URL (several separated by commas)')
    .optional(),
  STAGECRAFT_STORE: z
    .string()
    .regex(/^(memory:|sqlite:.+|kurrentdb(\+discover)?:\/\/.+|esdb(\+discover)?:\/\/.+)$/, 'memory:, sqlite:PATH or kurrentdb://…')
    .default(DEFAULT_EVENT_STORE_URL),
  STAGECRAFT_SUBJECT_PREFIX: SubjectPrefix.default(DEFAULT_SUBJECT_PREFIX),
  STAGECRAFT_HEALTH_PORT: Port.default(8080),
  /** Loopback unless told otherwise: a probe port is no business of other hosts outside a container. */
  STAGECRAFT_HEALTH_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:-]+$/, 'an address or host name to bind')
    .default('127.0.0.1'),
  /** The directories (and their subtrees) a request's project root may name; unset: any directory. */
  STAGECRAFT_PROJECT_ROOTS: ProjectRoots.optional(),
  /** The earlier, singular name of STAGECRAFT_PROJECT_ROOTS, still read when the plural is unset. */
  STAGECRAFT_PROJECT_ROOT: ProjectRoots.optional(),
  STAGECRAFT_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(30_000),
  /** How long a service (or `serve`) keeps trying to reach NATS at start-up before it exits 3; 0: one attempt. */
  STAGECRAFT_NATS_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** How long a stopping process may take; within the smallest terminationGracePeriodSeconds the manifests set (30 s). */
  STAGECRAFT_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type ShellEnv = z.infer<typeof ShellEnv>;

export interface ShellConfig {
  /** NATS_URL without credentials: safe to print. */
  natsUrl?: string;
  /** Who this process is on NATS (NATS_URL's credentials, NATS_TOKEN, NATS_CREDS, NATS_NKEY_SEED, NATS_TLS_*). */
  natsAuth: NatsAuth;
  store: string;
  prefix: string;
  healthPort: number;
  healthHost: string;
  /** Undefined: any existing directory may be a project root (the embedded CLI, working for its own user). */
  projectRoots?: string[];
  requestTimeoutMs: number;
  /** How long start-up waits for NATS (0: one attempt). */
  natsConnectTimeoutMs: number;
  /** How long a SIGTERM may take before what still runs is abandoned. */
  shutdownTimeoutMs: number;
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
  // Read here, at start-up: a creds or key file that cannot be read stops the process now, naming its variable.
  const nats = e.NATS_URL === undefined ? undefined : natsTargetFromEnv(e.NATS_URL, present);
  return {
    natsUrl: nats?.servers,
    natsAuth: nats?.auth ?? {},
    store: e.STAGECRAFT_STORE,
    prefix: e.STAGECRAFT_SUBJECT_PREFIX,
    healthPort: e.STAGECRAFT_HEALTH_PORT,
    healthHost: e.STAGECRAFT_HEALTH_HOST,
    projectRoots: e.STAGECRAFT_PROJECT_ROOTS ?? e.STAGECRAFT_PROJECT_ROOT,
    requestTimeoutMs: e.STAGECRAFT_REQUEST_TIMEOUT_MS,
    natsConnectTimeoutMs: e.STAGECRAFT_NATS_CONNECT_TIMEOUT_MS,
    shutdownTimeoutMs: e.STAGECRAFT_SHUTDOWN_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
  };
}
