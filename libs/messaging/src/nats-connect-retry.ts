import { setTimeout as sleep } from 'node:timers/promises';

/** One failed attempt to reach NATS, as a process logs it and its readiness reports it. */
export interface ConnectAttemptFailed {
  /** 1 for the first attempt. */
  attempt: number;
  /** The addresses tried (no credentials in them). */
  servers: string;
  /** What the client said, e.g. "connection refused". */
  error: string;
  /** The pause before the next attempt. */
  nextDelayMs: number;
  /** Since the first attempt. */
  elapsedMs: number;
}

/**
 * How long a process keeps trying to reach NATS at start-up. A process started next to its server
 * (a pod scheduled before NATS, compose starting all at once) should wait, not crash and loop.
 */
export interface ConnectRetry {
  /** Stop trying this long after the first attempt; 0: one attempt only. */
  budgetMs: number;
  /** Told about each failed attempt that will be followed by another. */
  onRetry?: (failed: ConnectAttemptFailed) => void;
  /** Aborting (a SIGTERM while waiting) ends the wait at once with the signal's reason. */
  signal?: AbortSignal;
  /** The first pause and the ceiling of the doubling pauses. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  random?: () => number;
  now?: () => number;
}

export const CONNECT_INITIAL_DELAY_MS = 250;
export const CONNECT_MAX_DELAY_MS = 5_000;
/** One attempt at most (the client's own default): a silent address must not take the whole budget in one go. */
export const CONNECT_ATTEMPT_TIMEOUT_MS = 20_000;

/**
 * The pause after failed attempt `attempt` (1-based): doubling from `initialMs` up to `maxMs`, with
 * "equal jitter" (between half and all of it), so replicas started together do not knock in step
 * and no pause is ever zero.
 */
export function connectBackoffMs(
  attempt: number,
  random: () => number,
  initialMs = CONNECT_INITIAL_DELAY_MS,
  maxMs = CONNECT_MAX_DELAY_MS,
): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Errors no retry can cure: wrong credentials, an option the client refuses. */
const CONFIGURATION_ERRORS = new Set(['AuthorizationError', 'UserAuthenticationExpiredError', 'InvalidArgumentError']);
export const isRetryableConnectError = (error: unknown): boolean =>
  !(error instanceof Error && (CONFIGURATION_ERRORS.has(error.name) || CONFIGURATION_ERRORS.has(error.constructor.name)));

export class ConnectGaveUp extends Error {
  constructor(
    readonly attempts: number,
    readonly elapsedMs: number,
    readonly last: unknown,
  ) {
    super(last instanceof Error ? last.message : String(last), { cause: last });
    this.name = 'ConnectGaveUp';
  }
}

/**
 * `connectOnce` until it succeeds, a failure is not worth another attempt, or the budget is spent:
 * then `ConnectGaveUp` with the last error. Each attempt is told how long it may take at most (the
 * rest of the budget, 20 s at most), so a silent address cannot stretch the wait.
 */
export async function connectRetrying<T>(
  servers: string,
  connectOnce: (attemptTimeoutMs: number | undefined) => Promise<T>,
  retry: ConnectRetry,
): Promise<T> {
  const now = retry.now ?? (() => performance.now());
  const random = retry.random ?? Math.random;
  const started = now();
  for (let attempt = 1; ; attempt++) {
    retry.signal?.throwIfAborted();
    const left = retry.budgetMs - (now() - started);
    try {
      return await connectOnce(retry.budgetMs > 0 ? Math.min(CONNECT_ATTEMPT_TIMEOUT_MS, Math.max(1_000, Math.round(left))) : undefined);
    } catch (error) {
      const elapsedMs = Math.round(now() - started);
      // The last pause is cut short so that the last attempt falls at the end of the budget, not before it.
      const nextDelayMs = Math.min(connectBackoffMs(attempt, random, retry.initialDelayMs, retry.maxDelayMs), retry.budgetMs - elapsedMs);
      if (!isRetryableConnectError(error) || nextDelayMs <= 0) throw new ConnectGaveUp(attempt, elapsedMs, error);
      retry.onRetry?.({ attempt, servers, error: error instanceof Error ? error.message : String(error), nextDelayMs, elapsedMs });
      await sleep(nextDelayMs, undefined, { signal: retry.signal });
    }
  }
}
