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
