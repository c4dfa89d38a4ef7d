/** The error body shape OpenAI-compatible endpoints answer with, so the client raises its typed errors. */
export function openAiErrorBody(status: number, message: string): { error: { message: string; type: string; code: string | null } } {
  return { error: { message, ...errorKind(status) } };
}

function errorKind(status: number): { type: string; code: string | null } {
  if (status === 429) return { type: 'rate_limit_error', code: 'rate_limit_exceeded' };
  if (status === 401) return { type: 'authentication_error', code: 'invalid_api_key' };
  if (status === 404) return { type: 'not_found_error', code: 'not_found' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}

/** Errors the client may retry; a `retry-after-ms` header keeps those retries quick in tests. */
export function isRetryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}
