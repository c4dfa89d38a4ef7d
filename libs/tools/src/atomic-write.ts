import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes through a temporary file in the same directory and renames it into place, so a reader never
 * sees half a file and a crash leaves the old content. An existing file keeps its permission bits.
 * Synchronous: a model writes source files, and a thread-pool round trip per step costs more than the write.
 */
export async function writeFileAtomic(absolute: string, content: string): Promise<void> {
  const directory = dirname(absolute);
  mkdirSync(directory, { recursive: true });
  const mode = statSync(absolute, { throwIfNoEntry: false })?.mode;
  const temporary = join(directory, `.${basename(absolute)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, content, { flag: 'wx', mode: mode === undefined ? 0o666 : mode & 0o7777 });
    renameSync(temporary, absolute);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was created
    }
    throw error;
  }
}
