import { StagecraftError } from '@stagecraft/contracts';
import { isNeverPassed } from './environment';

export interface SandboxLimits {
  /** RLIMIT_AS of every process. Node reserves about 1.25 GiB of address space before it runs any code. */
  memoryBytes: number;
  /** Processes and threads: pids.max of the call's cgroup, and RLIMIT_NPROC (which does not bind uid 0). */
  processes: number;
  /** RLIMIT_FSIZE: the largest file a command may write. */
  fileSizeBytes: number;
  /**
   * The size of the call's /tmp (its /dev/shm gets as much, up to 64 MiB): both are tmpfs, held in
   * the host's memory, and RLIMIT_AS does not count what a process writes there.
   */
  tmpBytes: number;
}

export interface SandboxOptions {
  /** The bubblewrap executable: a name looked up in the system directories, or an absolute path. */
  bwrap: string;
  /** Off: the command sees only its own loopback interface. */
  network: boolean;
  /** Variables the operator lets in beyond the built-in allow-list, with their values. */
  passEnv: Readonly<Record<string, string>>;
  limits: SandboxLimits;
  /** Sandboxes one service process runs at once; further commands queue, within their own timeout. */
  concurrency: number;
  /** Without a working sandbox, run the command directly instead of refusing it (operator opt-out). */
  unsafeWithoutSandbox: boolean;
}

const MiB = 1024 * 1024;

export const DEFAULT_SANDBOX_OPTIONS: SandboxOptions = Object.freeze({
  bwrap: 'bwrap',
  network: false,
  passEnv: Object.freeze({}),
  // 2 GiB left node about 0.7 GiB of heap; a type-check of this repository peaks at 550 MB.
  // Threads count as processes: one node process starts about ten, plus one per core.
  limits: Object.freeze({ memoryBytes: 4096 * MiB, processes: 1024, fileSizeBytes: 1024 * MiB, tmpBytes: 256 * MiB }),
  concurrency: 4,
  unsafeWithoutSandbox: false,
});

export const UNSAFE_OPT_OUT = 'STAGECRAFT_UNSAFE_RUN_COMMAND_WITHOUT_SANDBOX';

type Env = Record<string, string | undefined>;

const invalid = (variable: string, message: string) =>
  new StagecraftError('VALIDATION', `invalid configuration: ${variable}: ${message}`, [{ path: [variable], message }]);

function choice<T>(env: Env, variable: string, values: Record<string, T>, fallback: T): T {
  const raw = env[variable]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (Object.hasOwn(values, raw)) return values[raw];
  throw invalid(variable, `expected one of ${Object.keys(values).join(', ')}, got '${raw}'`);
}

function positiveMiB(env: Env, variable: string, fallbackBytes: number): number {
  const raw = env[variable]?.trim();
  if (raw === undefined || raw === '') return fallbackBytes;
  if (!/^[1-9]\d{0,7}$/.test(raw)) throw invalid(variable, `expected a whole number of MiB, got '${raw}'`);
  return Number(raw) * MiB;
}

function positiveCount(env: Env, variable: string, fallback: number): number {
  const raw = env[variable]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^[1-9]\d{0,6}$/.test(raw)) throw invalid(variable, `expected a positive whole number, got '${raw}'`);
  return Number(raw);
}

function bwrapPath(env: Env): string {
  const raw = env.STAGECRAFT_SANDBOX?.trim();
  if (raw === undefined || raw === '' || raw === 'bwrap') return DEFAULT_SANDBOX_OPTIONS.bwrap;
  if (raw.startsWith('/')) return raw;
  throw invalid(
    'STAGECRAFT_SANDBOX',
    `expected 'bwrap' or the absolute path of a bwrap executable, got '${raw}' (to run commands without a sandbox, set ${UNSAFE_OPT_OUT}=1 instead)`,
  );
}

function passEnv(env: Env): Record<string, string> {
  const names = (env.STAGECRAFT_SANDBOX_ENV ?? '').split(/[\s,]+/).filter((n) => n.length > 0);
  const malformed = names.filter((n) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
  if (malformed.length > 0) throw invalid('STAGECRAFT_SANDBOX_ENV', `not variable names: ${malformed.join(', ')}`);
  const forbidden = names.filter(isNeverPassed);
  if (forbidden.length > 0)
    throw invalid(
      'STAGECRAFT_SANDBOX_ENV',
      `${forbidden.join(', ')} may never enter the sandbox (the service's own credentials and settings)`,
    );
  return Object.fromEntries(names.flatMap((n) => (env[n] === undefined ? [] : [[n, env[n] as string]])));
}

/**
 * The sandbox settings of a deployment. The caller passes its environment in; this lib does not read
 * `process.env` itself. A bad value throws a VALIDATION error naming the variable, so a service stops
 * at start-up instead of running commands with settings nobody chose.
 */
export function sandboxOptionsFromEnv(env: Env): SandboxOptions {
  const defaults = DEFAULT_SANDBOX_OPTIONS.limits;
  return {
    bwrap: bwrapPath(env),
    network: choice(env, 'STAGECRAFT_SANDBOX_NETWORK', { off: false, on: true }, false),
    passEnv: passEnv(env),
    limits: {
      memoryBytes: positiveMiB(env, 'STAGECRAFT_SANDBOX_MEMORY_MB', defaults.memoryBytes),
      processes: positiveCount(env, 'STAGECRAFT_SANDBOX_MAX_PROCESSES', defaults.processes),
      fileSizeBytes: positiveMiB(env, 'STAGECRAFT_SANDBOX_MAX_FILE_MB', defaults.fileSizeBytes),
      tmpBytes: positiveMiB(env, 'STAGECRAFT_SANDBOX_TMP_MB', defaults.tmpBytes),
    },
    concurrency: positiveCount(env, 'STAGECRAFT_SANDBOX_CONCURRENCY', DEFAULT_SANDBOX_OPTIONS.concurrency),
    unsafeWithoutSandbox: choice(env, UNSAFE_OPT_OUT, { '0': false, '1': true }, false),
  };
}
