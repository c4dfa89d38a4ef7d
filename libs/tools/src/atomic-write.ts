import { randomBytes } from 'node:crypto';
import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes through a temporary file in the same directory and renames it into place, so a reader never
 * sees half a file and a crash leaves the old content. An existing file keeps its permission bits.
 */
export async function writeFileAtomic(absolute: string, content: string): Promise<void> {
  const directory = dirname(absolute);
  await mkdir(directory, { recursive: true });
  const mode = (await stat(absolute).catch(() => null))?.mode;
  const temporary = join(directory, `.${basename(absolute)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, content, { flag: 'wx', mode: mode === undefined ? 0o666 : mode & 0o7777 });
    await rename(temporary, absolute);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
