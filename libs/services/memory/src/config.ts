import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ErrorIssue, PriceTable, StagecraftError, issuesFromZod } from '@stagecraft/contracts';
import { ShellEnv } from '@stagecraft/service-shell';

export const DEFAULT_STUCK_AFTER_MS = 10 * 60_000;

export interface MemoryConfig {
  /** Dollars per million tokens by model: what `runs.list` and `runs.get` price a run's tokens at. */
  prices: PriceTable;
  /** A running run idle for longer than this is stuck. */
  stuckAfterMs: number;
  /** How long a read waits for its view to reach the position it needs before it answers `TIMEOUT`. */
  waitMs: number;
}

const MemoryEnv = z.object({
  STAGECRAFT_PRICES: z.string().optional(),
  STAGECRAFT_STUCK_AFTER_MS: z.coerce.number().int().min(1).default(DEFAULT_STUCK_AFTER_MS),
  STAGECRAFT_REQUEST_TIMEOUT_MS: ShellEnv.shape.STAGECRAFT_REQUEST_TIMEOUT_MS,
});

function invalid(issues: ErrorIssue[]): StagecraftError {
  const detail = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  return new StagecraftError('VALIDATION', `invalid configuration: ${detail}`, issues);
}

/** `STAGECRAFT_PRICES` holds the table as JSON, or names a JSON file that does. */
function pricesFrom(value: string | undefined, readFile: (path: string) => string): PriceTable {
  if (value === undefined) return {};
  const inline = value.trimStart().startsWith('{');
  let text = value;
  if (!inline) {
    try {
      text = readFile(value);
    } catch (error) {
      throw invalid([{ path: ['STAGECRAFT_PRICES'], message: `cannot read the price file ${value}: ${(error as Error).message}` }]);
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const what = inline ? 'not JSON' : `the price file ${value} is not JSON`;
    throw invalid([{ path: ['STAGECRAFT_PRICES'], message: `${what} (${(error as Error).message})` }]);
  }
  const parsed = PriceTable.safeParse(json);
  if (!parsed.success) throw invalid(issuesFromZod(parsed.error).map((i) => ({ ...i, path: ['STAGECRAFT_PRICES', ...i.path] })));
  return parsed.data;
}

/**
 * The memory service's settings, from the environment its composition root was given: prices
 * (`STAGECRAFT_PRICES`, `{ "<model>": { "promptPerMTok": n, "cachedPromptPerMTok"?: n, "completionPerMTok": n } }`;
 * cached prompt tokens cost the prompt price when a model has no cached price), the stuck
 * threshold (`STAGECRAFT_STUCK_AFTER_MS`, default ten minutes), and the request timeout a wait for a
 * position stays within. A bad value stops start-up with a message that names the variable.
 */
export function memoryConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): MemoryConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
  const parsed = MemoryEnv.safeParse(present);
  if (!parsed.success) throw invalid(issuesFromZod(parsed.error));
  const timeoutMs = parsed.data.STAGECRAFT_REQUEST_TIMEOUT_MS;
  return {
    prices: pricesFrom(parsed.data.STAGECRAFT_PRICES, readFile),
    stuckAfterMs: parsed.data.STAGECRAFT_STUCK_AFTER_MS,
    // The answer must reach the caller before the caller's own timeout (the same setting) gives up.
    waitMs: Math.max(1, timeoutMs - Math.min(1_000, Math.ceil(timeoutMs / 10))),
  };
}
