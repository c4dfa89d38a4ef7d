import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { StagecraftError } from '@stagecraft/contracts';

/**
 * The SDK has already retried what is worth retrying (429, 5xx, dropped connections) when an
 * error reaches here, so each becomes one coded error, once, with the HTTP status in the message.
 */
export function modelError(
  error: unknown,
  model: string,
  /** The endpoint asked, named in the hint of a configuration error. */
  baseURL: string,
  timing: { elapsedMs: number; timeoutMs: number } = { elapsedMs: 0, timeoutMs: Infinity },
): StagecraftError {
  if (error instanceof StagecraftError) return error;
  const cause = { cause: error };
  const detail = error instanceof Error ? error.message : String(error);
  // An abort is the caller's deadline or cancellation; the run treats both as running out of time.
  if (error instanceof APIUserAbortError) return new StagecraftError('TIMEOUT', `model request to ${model} was aborted`, [], cause);
  if (error instanceof APIConnectionTimeoutError)
    return new StagecraftError('TIMEOUT', `model request to ${model} timed out: ${detail}`, [], cause);
  // The client can tell a timeout from a dropped connection only when fetch's abort error comes from
  // its own realm (not so under a VM sandbox such as Jest's); the clock tells them apart everywhere.
  if (error instanceof APIConnectionError && timing.elapsedMs >= timing.timeoutMs) {
    return new StagecraftError(
      'TIMEOUT',
      `model request to ${model} timed out after ${Math.round(timing.elapsedMs)} ms: ${detail}`,
      [],
      cause,
    );
  }
  if (error instanceof APIConnectionError) return new StagecraftError('UNAVAILABLE', `model endpoint unreachable: ${detail}`, [], cause);
  if (error instanceof APIError) {
    const status = error.status;
    const message = `model request to ${model} failed with HTTP ${status}: ${detail}`;
    if (status === 408) return new StagecraftError('TIMEOUT', message, [], cause);
    if (status === 401 || status === 403) return new StagecraftError('UNAVAILABLE', `${message} (check OPENAI_API_KEY)`, [], cause);
    if (status === 429 || (status !== undefined && status >= 500)) return new StagecraftError('UNAVAILABLE', message, [], cause);
    // A 404 on the completions route means the endpoint does not know the model (or the base URL is not an
    // OpenAI-compatible API): a setting to fix, not a fault of the run.
    if (status === 404)
      return new StagecraftError(
        'CONFIGURATION',
        `model ${model} was not found at ${baseURL} (HTTP 404: ${detail}); check STAGECRAFT_MODEL and OPENAI_BASE_URL`,
        [{ path: ['model'], message: `not known at ${baseURL}`, code: 'MODEL_NOT_FOUND' }],
        cause,
      );
    return new StagecraftError('INTERNAL', message, [], cause);
  }
  return new StagecraftError('INTERNAL', `model request to ${model} failed: ${detail}`, [], cause);
}
