import { z } from 'zod';

export const ErrorCode = z.enum([
  'VALIDATION',
  'CONFLICT',
  'NOT_FOUND',
  'FORBIDDEN_TOOL',
  'FORBIDDEN_PATH',
  'INVARIANT_VIOLATION',
  'MODEL_FORMAT',
  'LIMIT_EXCEEDED',
  'UNAVAILABLE',
  'TIMEOUT',
  /** No credentials, or not ones this server accepts (an HTTP edge's bearer token). */
  'UNAUTHORIZED',
  /** Known caller, not allowed this: a bus role's subject permissions, an HTTP edge's origin or host check. */
  'FORBIDDEN',
  /** The deployment's settings name something that does not exist (e.g. a model the endpoint does not know). */
  'CONFIGURATION',
  /** Stored data is damaged (an event store file that fails its integrity check): retrying will not help. */
  'CORRUPT',
  /**
   * The disk holding the event store is full: the append can succeed once space is freed. Not
   * `UNAVAILABLE`, which callers retry as an absent service: a full disk does not empty itself.
   */
  'STORE_FULL',
  'INTERNAL',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorIssue = z.object({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
  code: z.string().optional(),
});
export type ErrorIssue = z.infer<typeof ErrorIssue>;

/** The one shape every failed request gets back, on every transport. */
export const ErrorReply = z.object({
  code: ErrorCode,
  message: z.string(),
  issues: z.array(ErrorIssue),
  omittedIssues: z.number().int().min(1).optional().describe('issues beyond the ones listed, left out to keep the reply small'),
});
export type ErrorReply = z.infer<typeof ErrorReply>;

/**
 * What one error reply may carry. One bad request can have an issue per array element (9,000 empty
 * strings gave a reply over NATS's 1 MiB and killed the service), so replies keep the first few
 * issues, each bounded, and count the rest. Worst case (every character escaped as \uXXXX) stays
 * under 200 KB; a typical capped reply is a few KB.
 */
export const ERROR_REPLY_LIMITS = { issues: 20, messageChars: 1_000, issueMessageChars: 300, codeChars: 64, pathSegments: 16, segmentChars: 64 } as const;

const thousands = (n: number): string => n.toLocaleString('en-US');

/** Cuts at a code point boundary, so a clipped text never ends in half a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 2] ?? '') ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

function boundedPath(path: ErrorIssue['path']): ErrorIssue['path'] {
  const { pathSegments, segmentChars } = ERROR_REPLY_LIMITS;
  const segments = path.length > pathSegments ? [...path.slice(0, pathSegments - 1), `… ${path.length - pathSegments + 1} more`] : path;
  return segments.map((s) => (typeof s === 'string' ? clip(s, segmentChars) : s));
}

function boundedIssue(issue: ErrorIssue): ErrorIssue {
  const bounded: ErrorIssue = { path: boundedPath(issue.path), message: clip(issue.message, ERROR_REPLY_LIMITS.issueMessageChars) };
  return issue.code === undefined ? bounded : { ...bounded, code: clip(issue.code, ERROR_REPLY_LIMITS.codeChars) };
}

/** The cap every error reply goes through (see `StagecraftError.toReply`). Idempotent. */
export function boundedErrorReply(reply: ErrorReply): ErrorReply {
  const issues = reply.issues.slice(0, ERROR_REPLY_LIMITS.issues).map(boundedIssue);
  const dropped = reply.issues.length - issues.length;
  const omitted = (reply.omittedIssues ?? 0) + dropped;
  // An already capped reply (relayed from another service) says so in its message once, not twice;
  // the note fits inside the message budget, so capping a capped reply changes nothing.
  const note = dropped > 0 ? ` (${thousands(omitted)} more issue${omitted === 1 ? '' : 's'} left out)` : '';
  const message = clip(reply.message, ERROR_REPLY_LIMITS.messageChars - note.length) + note;
  return omitted > 0 ? { code: reply.code, message, issues, omittedIssues: omitted } : { code: reply.code, message, issues };
}

/** A domain error with a code; mapped once, at the transport edge, to an ErrorReply. */
export class StagecraftError extends Error {
  /** Set when this error relays a capped reply: the issues its sender left out. */
  readonly omittedIssues?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues: ErrorIssue[] = [],
    options?: { cause?: unknown; omittedIssues?: number },
  ) {
    super(message, options);
    this.name = 'StagecraftError';
    if (options?.omittedIssues) this.omittedIssues = options.omittedIssues;
  }

  toReply(): ErrorReply {
    return boundedErrorReply({ code: this.code, message: this.message, issues: this.issues, omittedIssues: this.omittedIssues });
  }
}

export function issuesFromZod(error: z.ZodError): ErrorIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    message: issue.message,
    code: issue.code,
  }));
}

export function validationError(error: z.ZodError, what: string): StagecraftError {
  return new StagecraftError('VALIDATION', `invalid ${what}`, issuesFromZod(error));
}

/** Every error that leaves a service becomes a bounded ErrorReply here, whatever threw it. */
export function toErrorReply(error: unknown): ErrorReply {
  if (error instanceof StagecraftError) return error.toReply();
  if (error instanceof z.ZodError) return validationError(error, 'message').toReply();
  return new StagecraftError('INTERNAL', error instanceof Error ? error.message : String(error)).toReply();
}

/** What travels back on every request subject: the reply, or a structured error. */
export const ReplyEnvelope = <T extends z.ZodType>(data: T) =>
  z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), data }), z.object({ ok: z.literal(false), error: ErrorReply })]);
export type ReplyEnvelope<T> = { ok: true; data: T } | { ok: false; error: ErrorReply };
