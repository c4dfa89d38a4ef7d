import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';

/** The first executable file called `name` on a PATH-style list, or the name itself when absolute. */
export function findExecutable(name: string, path: string): string | null {
  if (name.startsWith('/')) return isExecutableFile(name) ? name : null;
  for (const dir of path.split(':')) {
    const candidate = join(dir, name);
    if (dir !== '' && isExecutableFile(candidate)) return candidate;
  }
  return null;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Where the sandbox machinery itself (bwrap, prlimit, sh) is looked up: never the service's PATH. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
