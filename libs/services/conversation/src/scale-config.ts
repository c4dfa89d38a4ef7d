import { StagecraftError, issuesFromZod } from '@stagecraft/contracts';
import { DEFAULT_RUN_EVENTS_MAX_AGE_MS } from '@stagecraft/messaging';
import { z } from 'zod';

export const DEFAULT_LEASE_TTL_MS = 15_000;

const ScaleEnv = z.object({
  /** How long a run or processor lease outlives its last renewal: how soon a dead replica's runs are taken over. */
  STAGECRAFT_LEASE_TTL_MS: z.coerce.number().int().min(300).max(600_000).default(DEFAULT_LEASE_TTL_MS),
  /** How long the run feed is kept for late subscribers (the JetStream stream's max age on NATS). */
  STAGECRAFT_RUN_EVENTS_MAX_AGE_MS: z.coerce.number().int().min(1_000).default(DEFAULT_RUN_EVENTS_MAX_AGE_MS),
});

export interface ScaleSettings {
  leaseTtlMs: number;
  runEventsMaxAgeMs: number;
}

/** The replica settings from the environment; a bad value stops the service at start-up, naming it. */
export function scaleFromEnv(env: Readonly<Record<string, string | undefined>>): ScaleSettings {
  const present = Object.fromEntries(Object.entries(env).filter(([key, value]) => key in ScaleEnv.shape && value?.trim()));
  const parsed = ScaleEnv.safeParse(present);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error);
    const detail = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new StagecraftError('VALIDATION', `invalid configuration: ${detail}`, issues);
  }
  return { leaseTtlMs: parsed.data.STAGECRAFT_LEASE_TTL_MS, runEventsMaxAgeMs: parsed.data.STAGECRAFT_RUN_EVENTS_MAX_AGE_MS };
}
