/** Subjects over two transports (in-process, NATS) with the validation edge: requests, the public run feed, JetStream, leases. */
export * from './bus';
export * from './errors';
export { createInprocBus } from './inproc-bus';
export { type ConnectNatsOptions, DRAIN_TIMEOUT_MS, createNatsBus, connectNatsBus } from './nats-bus';
export { type ConnectAttemptFailed, type ConnectRetry, connectBackoffMs } from './nats-connect-retry';
export { type NatsAuth, type NatsTarget, natsConnectOptions, natsTargetFromEnv, splitNatsUrl } from './nats-connect-options';
export * from './requests';
export { RESTART_RETRY, RESTART_WINDOW_MS, type RetryOptions, type RetryPolicy, requestRetrying } from './retry';
export { DEFAULT_STRUCTURE_LIMITS, StructureLimitError, checkJsonText, checkValue } from './bounds';
export { cachedRequests } from './cached-requests';
export type { CachedRequestsOptions } from './cached-requests';
export * from './publish';
export { subjectMatches } from './subject-match';
export { wireBytes } from './wire-size';
export { natsConnectionOf } from './nats-connection';
export { type LeaseStore, inProcessLeases, leaseKey, leasesFor } from './leases';
export { openNatsKvLeases } from './nats-kv-lease';
export {
  DEFAULT_RUN_EVENTS_MAX_AGE_MS,
  type FollowRunEventsOptions,
  followRunEvents,
  retainRunEvents,
  runEventsStreamName,
} from './run-events-stream';
