import { StagecraftError } from '@stagecraft/contracts';

const SQLITE_BUSY = 5;
const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_NOTADB = 26;
export const SQLITE_CONSTRAINT_UNIQUE = 2067;

export const sqliteErrorCode = (error: unknown): number | undefined =>
  typeof error === 'object' && error !== null && 'errcode' in error && typeof error.errcode === 'number' ? error.errcode : undefined;

/** An append refused because the disk holding the store is full (the error `toAppendError` made of it). */
export const isStoreFull = (error: unknown): boolean => error instanceof StagecraftError && error.code === 'STORE_FULL';

/** A locked file or a full disk is an availability problem, not a bug: the append can succeed later. */
export function toAppendError(error: unknown, stream: string): unknown {
  // Extended codes keep the primary code in their low byte (SQLITE_FULL is reported as-is, BUSY may be extended).
  switch ((sqliteErrorCode(error) ?? -1) & 0xff) {
    case SQLITE_BUSY:
      return new StagecraftError('UNAVAILABLE', `event store file stayed locked by another writer while appending to '${stream}'`, [], {
        cause: error,
      });
    case SQLITE_FULL:
      return new StagecraftError('STORE_FULL', `event store is full (${(error as Error).message}) while appending to '${stream}'`, [], {
        cause: error,
      });
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return corruptStore(error, `while appending to '${stream}'`);
    default:
      return error;
  }
}

/** The file is damaged: refused with its own code, so that no caller mistakes it for bad input or an outage. */
export function corruptStore(error: unknown, where: string, issues: string[] = []): StagecraftError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StagecraftError(
    'CORRUPT',
    `event store file is damaged (${reason}) ${where}`,
    issues.map((message) => ({ path: ['store'], message })),
    { cause: error },
  );
}

/** Errors that mean a damaged file rather than a busy or full one. */
export const isCorruption = (error: unknown): boolean => {
  const code = (sqliteErrorCode(error) ?? -1) & 0xff;
  return code === SQLITE_CORRUPT || code === SQLITE_NOTADB;
};
