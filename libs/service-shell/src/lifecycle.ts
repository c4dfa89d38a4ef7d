import type { ConnectAttemptFailed } from '@stagecraft/messaging';
import type { ReadinessCheck } from './probe-server';

/**
 * Where a long-running process is in its life. Only `serving` checks its dependencies; before and
 * after, `/readyz` says why it takes no traffic, and `/healthz` stays 200 (the process is alive).
 */
export type LifecyclePhase =
  { kind: 'connecting'; address: string; lastAttempt?: ConnectAttemptFailed } | { kind: 'serving' } | { kind: 'stopping' };

/** The readiness report of a process that is not serving: NATS still being looked for, or a stop under way. */
export function notServingChecks(phase: Exclude<LifecyclePhase, { kind: 'serving' }>): ReadinessCheck[] {
  if (phase.kind === 'stopping') return [{ name: 'process', ok: false, required: true, detail: 'stopping' }];
  const last = phase.lastAttempt;
  const detail = last
    ? `not reached yet: attempt ${last.attempt} failed (${last.error}); next in ${last.nextDelayMs} ms`
    : 'connecting (first attempt)';
  return [{ name: 'nats', ok: false, required: true, address: phase.address, detail }];
}

/** Exit codes of a service process: the scheme of docs/decisions/0028 (a configuration error keeps its historical 1). */
export const PROCESS_EXIT = { done: 0, failed: 1, unreachable: 3 } as const;

/** A dependency that could not be reached ends the process with 3 ("try again later"), anything else with 1. */
export const exitCodeOfStartFailure = (code: string): number =>
  code === 'UNAVAILABLE' || code === 'TIMEOUT' ? PROCESS_EXIT.unreachable : PROCESS_EXIT.failed;

/**
 * Runs `work` for at most `timeoutMs`: a stop that hangs (a server that never answers a drain, a
 * handler that never returns) must not outlast the pod's grace period and end in a SIGKILL.
 * Resolves `true` when `work` finished in time; `work` rejecting counts as finished.
 */
export async function within(timeoutMs: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  const done = work.then(
    () => true as const,
    () => true as const,
  );
  const finished = await Promise.race([done, late]);
  clearTimeout(timer);
  return finished;
}
