import { z } from 'zod';
import { ServiceName } from './common';

export const HealthRequest = z.object({}).strict();
export type HealthRequest = z.infer<typeof HealthRequest>;
export const HealthReply = z.object({
  service: ServiceName,
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  pid: z.number().int(),
  uptimeMs: z.number().min(0),
  transport: z.enum(['inproc', 'nats']),
  store: z.string().nullable(),
});
export type HealthReply = z.infer<typeof HealthReply>;
