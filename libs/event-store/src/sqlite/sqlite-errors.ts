import { StagecraftError } from '@stagecraft/contracts';

const SQLITE_BUSY = 5;
export const SQLITE_CONSTRAINT_UNIQUE = 2067;

export const sqliteErrorCode = (error: unknown): number | undefined =>
  typeof error === 'object' && error !== null && 'errcode' in error && typeof error.errcode === 'number' ? error.errcode : undefined;

/** A writer that held the file past the busy timeout is an availability problem, not a bug. */
export function toAppendError(error: unknown, stream: string): unknown {
  return sqliteErrorCode(error) === SQLITE_BUSY
    ? new StagecraftError('UNAVAILABLE', `event store file stayed locked by another writer while appending to '${stream}'`, [], { cause: error })
    : error;
}
