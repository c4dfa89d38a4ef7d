import { setTimeout as sleep } from 'node:timers/promises';
import { ReplyOf, RequestOf, RequestSubject, toErrorReply } from '@stagecraft/contracts';
import { RequestOptions, Requester } from './requests';

/**
 * Asking again while a service restarts. A service that dies mid-request never answers, and a request
 * over NATS cannot tell: a short attempt and another one find out sooner. Only for requests that are
 * safe to repeat (idempotent, or deduplicated by an id in the request).
 */
export interface RetryPolicy {
  /** One attempt waits this long at most. */
  attemptTimeoutMs: number;
  /** The pause after each failed attempt; the last one repeats. */
  delaysMs: readonly number[];
}

/** How long a caller keeps asking while a stateless service (prompt assembly) restarts. */
export const RESTART_WINDOW_MS = 30_000;

export const RESTART_RETRY: RetryPolicy = { attemptTimeoutMs: 10_000, delaysMs: [100, 250, 500, 1_000, 2_000] };

/** Nobody answered (no responders, or no reply in time): the request may never have been served. Anything else is an answer. */
const unanswered = (code: string) => code === 'UNAVAILABLE' || code === 'TIMEOUT';

export interface RetryOptions extends Omit<RequestOptions, 'timeoutMs'> {
  policy?: RetryPolicy;
  /** A time (ms, by `now`) after which the last failure stands. */
  giveUpAt: number;
  now: () => number;
  /** Told before each new attempt, with the code the last one failed with (to log it). */
  onRetry?: (attempt: number, code: string) => void;
}

export async function requestRetrying<S extends RequestSubject>(
  requester: Requester,
  subject: S,
  data: RequestOf<S>,
  { policy = RESTART_RETRY, giveUpAt, now, onRetry, ...options }: RetryOptions,
): Promise<ReplyOf<S>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await requester.request(subject, data, { ...options, timeoutMs: policy.attemptTimeoutMs });
    } catch (error) {
      const { code } = toErrorReply(error);
      if (!unanswered(code) || now() > giveUpAt) throw error;
      onRetry?.(attempt + 1, code);
      await sleep(policy.delaysMs[Math.min(attempt, policy.delaysMs.length - 1)]);
    }
  }
}
