import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';

/**
 * Room kept next to a store file for the one append that matters when the disk fills: the record of
 * why a run stopped. Made (best effort) when the store opens; given back when an append finds the disk
 * full, so that the failure is stored instead of the run being left `running` with no cause.
 */
export const RESERVE_BYTES = 256 * 1024;

export const reservePath = (storePath: string): string => `${storePath}.reserve`;

/** Makes the reserve when it is missing or short; a disk too full to hold it is left as it is. */
export function keepReserve(storePath: string, bytes = RESERVE_BYTES): void {
  const path = reservePath(storePath);
  try {
    if (statSync(path).size >= bytes) return;
  } catch {
    // missing: made below
  }
  let fd: number | undefined;
  try {
    fd = openSync(path, 'w', 0o600);
    const zeros = Buffer.alloc(64 * 1024);
    for (let written = 0; written < bytes; written += zeros.length) writeSync(fd, zeros);
  } catch {
    rmSync(path, { force: true });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Gives the reserve back to the disk; true when there was one to give. */
export function releaseReserve(storePath: string): boolean {
  try {
    const had = statSync(reservePath(storePath)).isFile();
    rmSync(reservePath(storePath), { force: true });
    return had;
  } catch {
    return false;
  }
}
