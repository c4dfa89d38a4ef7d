import { CONTEXT_WINDOW_RANGE, RUN_LIMIT_RANGES, StagecraftError, issuesFromZod } from '@stagecraft/contracts';
import type { RunLimits, StageMessageRole } from '@stagecraft/run';
import { z } from 'zod';

const within = ({ min, max }: { min: number; max: number }) => z.coerce.number().int().min(min).max(max).optional();

const LimitsEnv = z.object({
  /** Tool rounds between delivery gates (`maxToolIterations`). */
  STAGECRAFT_MAX_TOOL_ROUNDS: within(RUN_LIMIT_RANGES.maxToolIterations),
  /** Delivery gates a run may go through before QA takes what there is (`maxDeliveryChecks`). */
  STAGECRAFT_MAX_DELIVERY_CHECKS: within(RUN_LIMIT_RANGES.maxDeliveryChecks),
  /** Tokens every request must fit in (`contextWindow`): the window of the smallest model the service asks. */
  STAGECRAFT_CONTEXT_WINDOW: within(CONTEXT_WINDOW_RANGE),
});

/**
 * The bounds a run starts with unless its request asks for others, from the environment over `base`;
 * the ranges are those a request may ask for. A bad value stops the service at start-up, naming it.
 */
export function limitsFromEnv(env: Readonly<Record<string, string | undefined>>, base: RunLimits): RunLimits {
  const present = Object.fromEntries(Object.entries(env).filter(([key, value]) => key in LimitsEnv.shape && value?.trim()));
  const parsed = LimitsEnv.safeParse(present);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error);
    const detail = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new StagecraftError('VALIDATION', `invalid configuration: ${detail}`, issues);
  }
  const { STAGECRAFT_MAX_TOOL_ROUNDS: rounds, STAGECRAFT_MAX_DELIVERY_CHECKS: checks, STAGECRAFT_CONTEXT_WINDOW: window } = parsed.data;
  return {
    ...base,
    ...(rounds !== undefined && { maxToolIterations: rounds }),
    ...(checks !== undefined && { maxDeliveryChecks: checks }),
    ...(window !== undefined && { contextWindow: window }),
  };
}

const ROLES: readonly StageMessageRole[] = ['system', 'user'];

/**
 * `STAGECRAFT_STAGE_MESSAGE_ROLE`: `system` (the default) sends the stage's part of each prompt as a system
 * message after the history; `user`, wrapped in `<stage_instructions>`, for endpoints whose chat template
 * accepts a system message only first. A bad value stops the service at start-up, naming it.
 */
export function stageMessageRoleFromEnv(env: Readonly<Record<string, string | undefined>>, base: StageMessageRole): StageMessageRole {
  const value = env.STAGECRAFT_STAGE_MESSAGE_ROLE?.trim();
  if (!value) return base;
  if ((ROLES as readonly string[]).includes(value)) return value as StageMessageRole;
  const message = `one of ${ROLES.join(', ')}`;
  throw new StagecraftError('VALIDATION', `invalid configuration: STAGECRAFT_STAGE_MESSAGE_ROLE: ${message}`, [
    { path: ['STAGECRAFT_STAGE_MESSAGE_ROLE'], message },
  ]);
}
