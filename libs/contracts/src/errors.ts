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
});
export type ErrorReply = z.infer<typeof ErrorReply>;

/** A domain error with a code; mapped once, at the transport edge, to an ErrorReply. */
export class StagecraftError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues: ErrorIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StagecraftError';
  }

  toReply(): ErrorReply {
    return { code: this.code, message: this.message, issues: this.issues };
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

export function toErrorReply(error: unknown): ErrorReply {
  if (error instanceof StagecraftError) return error.toReply();
  if (error instanceof z.ZodError) return validationError(error, 'message').toReply();
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message, issues: [] };
}

/** What travels back on every request subject: the reply, or a structured error. */
export const ReplyEnvelope = <T extends z.ZodType>(data: T) =>
  z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), data }), z.object({ ok: z.literal(false), error: ErrorReply })]);
export type ReplyEnvelope<T> = { ok: true; data: T } | { ok: false; error: ErrorReply };
