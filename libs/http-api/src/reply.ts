import { ErrorCode, ErrorReply, StagecraftError, toErrorReply } from '@stagecraft/contracts';

/** A JSON reply: the status and the body its route's schema describes, or an `ErrorReply`. */
export interface ApiReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  VALIDATION: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  FORBIDDEN_PATH: 403,
  FORBIDDEN_TOOL: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 413,
  UNAVAILABLE: 503,
  TIMEOUT: 503,
};

/** The one place an error becomes an HTTP status: by its code. */
export const statusOf = (reply: ErrorReply): number => STATUS[reply.code] ?? 500;

export function errorReply(error: unknown): ApiReply {
  const body = toErrorReply(error);
  return { status: statusOf(body), body };
}

export const notFound = (what: string): StagecraftError => new StagecraftError('NOT_FOUND', `no ${what}`);
