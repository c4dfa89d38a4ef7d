import { StagecraftError } from '@stagecraft/contracts';

export class NoRespondersError extends StagecraftError {
  constructor(subject: string, options?: { cause?: unknown }) {
    super('UNAVAILABLE', `no service answers on ${subject}`, [], options);
    this.name = 'NoRespondersError';
  }
}

export class RequestTimeoutError extends StagecraftError {
  constructor(subject: string, timeoutMs: number, options?: { cause?: unknown }) {
    super('TIMEOUT', `no reply on ${subject} within ${timeoutMs} ms`, [], options);
    this.name = 'RequestTimeoutError';
  }
}

/** A message over the transport's `maxPayload`: refused before sending, on both transports alike. */
export class PayloadTooLargeError extends StagecraftError {
  constructor(
    readonly subject: string,
    what: 'request' | 'reply' | 'message',
    readonly bytes: number,
    readonly maxPayload: number,
  ) {
    const count = (n: number) => n.toLocaleString('en-US');
    super('LIMIT_EXCEEDED', `the ${what} on ${subject} is ${count(bytes)} bytes, over the transport's limit of ${count(maxPayload)}`);
    this.name = 'PayloadTooLargeError';
  }
}

/**
 * The server refused this connection's identity the subject (its role's permissions): the request
 * never reached a service, and asking again cannot help (not UNAVAILABLE, which callers retry).
 */
export class NotPermittedError extends StagecraftError {
  constructor(subject: string, options?: { cause?: unknown }) {
    super('FORBIDDEN', `NATS does not permit this client to publish to ${subject} (its user's permissions)`, [], options);
    this.name = 'NotPermittedError';
  }
}
