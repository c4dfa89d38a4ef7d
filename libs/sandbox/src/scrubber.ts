/** Shorter values would redact ordinary words and numbers, and are not worth stealing anyway. */
const MIN_SECRET_CHARS = 8;

// OPENAI_API_KEY is one of them by its suffix.
const SECRET_NAME = /_(KEY|TOKEN|SECRET|PASSWORD)$/i;

/**
 * The values of the variables that hold secrets: OPENAI_API_KEY, every name ending in _KEY, _TOKEN,
 * _SECRET or _PASSWORD, and the names listed in STAGECRAFT_SECRET_VARS (comma- or space-separated).
 */
export function secretsFromEnv(env: Record<string, string | undefined>): Record<string, string> {
  const listed = new Set((env.STAGECRAFT_SECRET_VARS ?? '').split(/[\s,]+/).filter((n) => n.length > 0));
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && entry[1] !== '' && (SECRET_NAME.test(entry[0]) || listed.has(entry[0])),
    ),
  );
}

/**
 * Replaces every occurrence of each secret value with `[redacted:NAME]`. Longer values go first, so a
 * secret that contains another is redacted whole, under its own name.
 */
export function createScrubber(secrets: Record<string, string>): (text: string) => string {
  const entries = Object.entries(secrets)
    .filter(([, value]) => value.length >= MIN_SECRET_CHARS)
    .sort(([, a], [, b]) => b.length - a.length);
  return (text) => entries.reduce((scrubbed, [name, value]) => scrubbed.split(value).join(`[redacted:${name}]`), text);
}
