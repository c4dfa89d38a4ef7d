import { StagecraftError } from '@stagecraft/contracts';

const SQLITE_BUSY = 5;
const SQLITE_FULL = 13;
export const SQLITE_CONSTRAINT_UNIQUE = 2067;

export const sqliteErrorCode = (error: unknown): number | undefined =>
  typeof error === 'object' && error !== null && 'errcode' in error && typeof error.errcode === 'number' ? error.errcode : undefined;

/** A locked file or a full disk is an availability problem, not a bug: the append can succeed later. */
export function toAppendError(error: unknown, stream: string): unknown {
  // Extended codes keep the primary code in their low byte (SQLITE_FULL is reported as-is, BUSY may be extended).
  switch ((sqliteErrorCode(error) ?? -1) & 0xff) {
    case SQLITE_BUSY:
      return new StagecraftError('UNAVAILABLE', `event store file stayed locked by another writer while appending to '${stream}'`, [], {
        cause: error,
      });
    case SQLITE_FULL:
      return new StagecraftError('UNAVAILABLE', `event store is full (${(error as Error).message}) while appending to '${stream}'`, [], {
        cause: error,
      });
    default:
      return error;
  }
}
