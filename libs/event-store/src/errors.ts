import { StagecraftError } from '@stagecraft/contracts';
import type { ExpectedRevision } from './port';

/** The stream's actual state when an append was refused. */
export type ActualRevision = bigint | 'no_stream';

export class ConcurrencyError extends StagecraftError {
  readonly stream: string;
  readonly expected: ExpectedRevision;
  readonly actual: ActualRevision;

  constructor(stream: string, expected: ExpectedRevision, actual: ActualRevision, options?: { cause?: unknown; reason?: string }) {
    const reason = options?.reason ?? `expected revision ${String(expected)}, actual ${String(actual)}`;
    super('CONFLICT', `append to stream '${stream}' refused: ${reason}`, [{ path: ['expectedRevision'], message: reason }], options);
    this.name = 'ConcurrencyError';
    this.stream = stream;
    this.expected = expected;
    this.actual = actual;
  }
}
