import { z } from 'zod';
import { Stage, StagecraftError } from '@stagecraft/contracts';

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MODEL = 'gpt-4o-mini';

export interface GatewayConfig {
  baseURL: string;
  /** Null when unset: a local endpoint may not need one, and callers decide what to do without it. */
  apiKey: string | null;
  /** The model every stage asks unless `stageModels` names another for it. */
  model: string;
  /** Per-stage overrides, from `STAGECRAFT_MODEL_<STAGE>` (e.g. a small model for `delivery_check`). */
  stageModels?: Partial<Record<Stage, string>>;
  timeoutMs?: number;
  maxRetries?: number;
}

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

/** `STAGECRAFT_MODEL_WARMUP`, `STAGECRAFT_MODEL_TOOL_FOLLOWUP`, …: one variable per stage. */
export const stageModelVariable = (stage: Stage): string => `STAGECRAFT_MODEL_${stage.toUpperCase()}`;

const EnvSchema = z.object({
  OPENAI_BASE_URL: optional(z.url({ protocol: /^https?$/ })),
  OPENAI_API_KEY: optional(z.string().trim()),
  STAGECRAFT_MODEL: optional(z.string().trim().min(1)),
  STAGECRAFT_MODEL_TIMEOUT_MS: optional(z.coerce.number().int().positive()),
  STAGECRAFT_MODEL_MAX_RETRIES: optional(z.coerce.number().int().min(0).max(10)),
  ...Object.fromEntries(Stage.options.map((stage) => [stageModelVariable(stage), optional(z.string().trim().min(1))])),
});

/** The model a stage asks: its own override, else the default. */
export const modelForStage = (config: Pick<GatewayConfig, 'model' | 'stageModels'>, stage: Stage): string =>
  config.stageModels?.[stage] ?? config.model;

/** Reads the model settings from an environment the caller passes in (apps own `process.env`). */
export function gatewayConfigFromEnv(env: Record<string, string | undefined>): GatewayConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message, code: issue.code }));
    const named = issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new StagecraftError('VALIDATION', `invalid configuration: ${named}`, issues);
  }
  const { OPENAI_BASE_URL, OPENAI_API_KEY, STAGECRAFT_MODEL, STAGECRAFT_MODEL_TIMEOUT_MS, STAGECRAFT_MODEL_MAX_RETRIES } = parsed.data;
  const config: GatewayConfig = {
    baseURL: OPENAI_BASE_URL ?? DEFAULT_BASE_URL,
    apiKey: OPENAI_API_KEY ?? null,
    model: STAGECRAFT_MODEL ?? DEFAULT_MODEL,
  };
  const stageModels = Object.fromEntries(
    Stage.options.flatMap((stage) => {
      const named = (parsed.data as Record<string, unknown>)[stageModelVariable(stage)];
      return typeof named === 'string' ? [[stage, named]] : [];
    }),
  );
  if (Object.keys(stageModels).length > 0) config.stageModels = stageModels;
  if (STAGECRAFT_MODEL_TIMEOUT_MS !== undefined) config.timeoutMs = STAGECRAFT_MODEL_TIMEOUT_MS;
  if (STAGECRAFT_MODEL_MAX_RETRIES !== undefined) config.maxRetries = STAGECRAFT_MODEL_MAX_RETRIES;
  return config;
}
