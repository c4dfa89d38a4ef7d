import { RequestError } from '@agentclientprotocol/sdk';
import { StagecraftError, toErrorReply } from '@stagecraft/contracts';

/** JSON-RPC's "resource not found" (ACP uses it for an unknown session). */
const RESOURCE_NOT_FOUND = -32002;

/**
 * Every error a handler throws, as the JSON-RPC error the client gets: our `{ code, message, issues }`
 * in `data`, under the JSON-RPC code that says whose fault it was. Mapped here once.
 */
export function toRequestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  const reply = toErrorReply(error);
  const code =
    reply.code === 'NOT_FOUND'
      ? RESOURCE_NOT_FOUND
      : reply.code === 'VALIDATION' || reply.code === 'FORBIDDEN_PATH' || reply.code === 'CONFLICT'
        ? -32602
        : -32603;
  return new RequestError(code, reply.message, reply);
}

/** Runs a handler and maps what it throws. */
export const mapped =
  <A extends unknown[], R>(handler: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    try {
      return await handler(...args);
    } catch (error) {
      throw toRequestError(error);
    }
  };

export const unknownSession = (sessionId: string) =>
  new StagecraftError('NOT_FOUND', `no session ${sessionId}: create one with session/new or load it with session/load`, [
    { path: ['sessionId'], message: 'unknown session' },
  ]);
