import { CompactionSettings, StagecraftError, issuesFromZod } from '@stagecraft/contracts';
import { DEFAULT_COMPACTION } from '@stagecraft/run';

/**
 * How runs compact their history, from the environment: `STAGECRAFT_COMPACTION` (`extractive`, the
 * default; `model`; `off`), `STAGECRAFT_COMPACT_MAX_TOKENS`, `STAGECRAFT_COMPACT_MAX_MESSAGES` and
 * `STAGECRAFT_COMPACT_KEEP_TOKENS`. A bad value stops the service at start-up, naming it.
 */
export function compactionFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  base: CompactionSettings = DEFAULT_COMPACTION,
): CompactionSettings | null {
  const method = env.STAGECRAFT_COMPACTION?.trim() || base.method;
  if (method === 'off') return null;
  const number = (name: string, fallback: number) => {
    const value = env[name]?.trim();
    return value ? Number(value) : fallback;
  };
  const parsed = CompactionSettings.safeParse({
    method,
    maxTokens: number('STAGECRAFT_COMPACT_MAX_TOKENS', base.maxTokens),
    maxMessages: number('STAGECRAFT_COMPACT_MAX_MESSAGES', base.maxMessages),
    keepRecentTokens: number('STAGECRAFT_COMPACT_KEEP_TOKENS', base.keepRecentTokens),
    // Not a setting: the summary rule this build writes, recorded for replay.
    ...(base.summaryVersion ? { summaryVersion: base.summaryVersion } : {}),
  });
  if (!parsed.success) throw new StagecraftError('VALIDATION', 'bad compaction settings in the environment', issuesFromZod(parsed.error));
  return parsed.data;
}
