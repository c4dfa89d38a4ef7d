import { z } from 'zod';
import { ServiceName } from './common';

export const HealthRequest = z.object({}).strict();
export type HealthRequest = z.infer<typeof HealthRequest>;

/**
 * One dependency of a service as checked when asked: the event store (a real read), NATS (a round
 * trip) and, only as a warning (`required: false`), the model endpoint of a service that calls one.
 */
export const DependencyCheck = z.object({
  name: z.enum(['store', 'nats', 'model']),
  ok: z.boolean(),
  /** False: a failure only warns (the service still answers; its runs would fail at the model call). */
  required: z.boolean(),
  /** Where the dependency was looked for, credentials left out: a store URL, a NATS URL, a model base URL. */
  address: z.string(),
  /** Why it failed, or what answered. */
  detail: z.string().optional(),
  latencyMs: z.number().min(0),
});
export type DependencyCheck = z.infer<typeof DependencyCheck>;

export const HealthReply = z.object({
  service: ServiceName,
  /** `down`: a required dependency failed; `degraded`: only a warning did. */
  status: z.enum(['ok', 'degraded', 'down']),
  version: z.string(),
  pid: z.number().int(),
  uptimeMs: z.number().min(0),
  transport: z.enum(['inproc', 'nats']),
  store: z.string().nullable(),
  dependencies: z.array(DependencyCheck),
});
export type HealthReply = z.infer<typeof HealthReply>;

/** The status a set of checks gives a service that answers. */
export function healthStatusOf(checks: readonly DependencyCheck[]): HealthReply['status'] {
  if (checks.some((c) => !c.ok && c.required)) return 'down';
  return checks.some((c) => !c.ok) ? 'degraded' : 'ok';
}
