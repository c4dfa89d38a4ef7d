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

/** How every redaction starts: `[redacted:NAME]` for a variable's value, `[redacted:kind]` for a form. */
export const REDACTION_MARK = '[redacted:';

/** How many redactions a text holds. */
export const redactionsIn = (text: string): number => text.split(REDACTION_MARK).length - 1;

/**
 * Secrets recognised by their form wherever they come from (a `.env` file, `git remote -v`, a
 * command's debug output), not only the values of the service's own variables. Each is specific
 * enough not to redact ordinary code: a model that reads `[redacted:…]` where code was would write
 * it back. Every repetition is bounded, so no output can make these patterns slow.
 */
const SHAPES: readonly { kind: string; pattern: RegExp; keep?: (...groups: string[]) => string }[] = [
  // PEM private keys and NATS creds seeds, to their END line, or to the end of a cut-off output.
  {
    kind: 'private-key',
    pattern:
      /(-{5}BEGIN [A-Z0-9 ]{0,40}(?:PRIVATE KEY|NKEY SEED)-{5,6})[\s\S]*?(?:(-{5,6}END [A-Z0-9 ]{0,40}(?:PRIVATE KEY|NKEY SEED)-{5,6})|$)/g,
    keep: (begin, end) => `${begin}\n[redacted:private-key]\n${end ?? ''}`,
  },
  // scheme://user:password@host: the password only, so the address stays readable.
  {
    kind: 'password',
    pattern: /\b([a-zA-Z][a-zA-Z0-9+.-]{0,30}:\/\/[^\s:/@]{0,256}:)[^\s@/]{1,256}@/g,
    keep: (prefix) => `${prefix}[redacted:password]@`,
  },
  { kind: 'anthropic-key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,400}/g },
  { kind: 'openai-key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,400}/g },
  { kind: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{30,255})/g },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,255}/g },
  { kind: 'npm-token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'stripe-key', pattern: /\b[sr]k_live_[0-9A-Za-z]{20,255}/g },
  // A JWT (NATS user JWTs included): base64url of `{"` starts both the header and the payload.
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{5,8192}\.[A-Za-z0-9_-]{0,4096}/g },
  // NATS nkey seeds: S, the key type, then 56 base32 characters.
  { kind: 'nkey-seed', pattern: /\bS[UANOCPX][A-Z2-7]{56}\b/g },
  {
    kind: 'authorization',
    pattern: /\b(authorization:\s{0,8}(?:bearer|basic|token)\s{1,8})[A-Za-z0-9._~+/=-]{8,4096}/gi,
    keep: (prefix) => `${prefix}[redacted:authorization]`,
  },
];

function redactShapes(text: string): string {
  return SHAPES.reduce(
    (scrubbed, { kind, pattern, keep }) =>
      scrubbed.replace(pattern, (_match, ...groups: unknown[]) =>
        keep ? keep(...groups.slice(0, -2).map((g) => g as string)) : `[redacted:${kind}]`,
      ),
    text,
  );
}

/**
 * Replaces every occurrence of each secret value with `[redacted:NAME]`, then every secret recognised
 * by its form with `[redacted:kind]`. Longer values go first, so a secret that contains another is
 * redacted whole, under its own name.
 */
export function createScrubber(secrets: Record<string, string>): (text: string) => string {
  const entries = Object.entries(secrets)
    .filter(([, value]) => value.length >= MIN_SECRET_CHARS)
    .sort(([, a], [, b]) => b.length - a.length);
  return (text) => redactShapes(entries.reduce((scrubbed, [name, value]) => scrubbed.split(value).join(`[redacted:${name}]`), text));
}
