import {
  Stats,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isAbsolute, relative, sep } from 'node:path';
import { forbiddenPath } from './resolve-inside-root';

// Race-free access below a project root. A model's `run_command` runs beside the file tools and can
// turn a directory into a symlink between a path check and its use, so nothing here is looked up by
// its full name: every path is opened one component at a time, each relative to a descriptor of the
// one before (Linux's /proc/self/fd/N/name resolves `name` in the directory N holds, whatever its path
// has become), and no component is followed if it is a symlink. Paths handed in are the real paths
// resolveInsideRoot answered, so a symlink met on the way is one that appeared after the check.

/** Linux's O_PATH (absent from fs.constants): a handle that neither reads nor runs open side effects. */
const O_PATH = 0o10000000;
const { O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_RDONLY } = constants;
const DIRECTORY = O_PATH | O_DIRECTORY | O_NOFOLLOW;
const NODE = O_PATH | O_NOFOLLOW;

/** `name` inside the directory a descriptor holds. */
export const at = (directory: number, name: string) => `/proc/self/fd/${directory}/${name}`;
/** The object a descriptor holds, to list or reopen it. */
export const held = (fd: number) => `/proc/self/fd/${fd}`;

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Calls `use` with `fd`, closing it afterwards whatever happens. */
export function using<T>(fd: number, use: (fd: number) => T): T {
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

const raced = (shown: string, name: string) => forbiddenPath(shown, `'${name}' became a symlink while the path was in use`);

const notADirectory = (shown: string, name: string) =>
  Object.assign(new Error(`'${shown}' cannot be used: its part '${name}' is not a directory`), { code: 'ENOTDIR' });

/**
 * The subdirectory `name` of `directory`, created first when `create` is set; undefined when it does
 * not exist (or is not a directory) and nothing is to be created. A symlink there is refused.
 */
export function openSubdirectory(directory: number, name: string, shown: string, create = false): number | undefined {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return openSync(at(directory, name), DIRECTORY);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' && create && attempt === 0) {
        try {
          mkdirSync(at(directory, name));
        } catch (made) {
          if (errorCode(made) !== 'EEXIST') throw made;
        }
        continue;
      }
      if (code === 'ENOENT') return undefined;
      if (code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
      if (lstatSync(at(directory, name), { throwIfNoEntry: false })?.isSymbolicLink()) throw raced(shown, name);
      if (create) throw notADirectory(shown, name);
      return undefined;
    }
  }
}

/** The real root, opened by its name: the root itself is the one path a model cannot move. */
export const openRoot = (realRoot: string) => openSync(realRoot, DIRECTORY);

/** Components of a real path below the root; none for the root itself. */
function partsOf(realRoot: string, absolute: string, shown: string): string[] {
  const rel = relative(realRoot, absolute);
  const parts = rel === '' ? [] : rel.split(sep);
  // `..` through a descriptor would climb out of the directory it holds.
  if (isAbsolute(rel) || parts.includes('..')) throw forbiddenPath(shown, 'it leaves the project root');
  return parts;
}

/**
 * Calls `use` with a descriptor of the directory that holds `absolute` and the last name of the path
 * (`.` for the root itself), or with `undefined` when that directory does not exist and `create` is
 * not set. Missing directories are created, one by one, when it is.
 */
export function inParent<T>(
  realRoot: string,
  absolute: string,
  shown: string,
  create: boolean,
  use: (directory: number | undefined, name: string) => T,
): T {
  const parts = partsOf(realRoot, absolute, shown);
  const name = parts.pop() ?? '.';
  let fd: number | undefined = openRoot(realRoot);
  try {
    for (const part of parts) {
      const next: number | undefined = openSubdirectory(fd, part, shown, create);
      closeSync(fd);
      fd = next;
      if (fd === undefined) break;
    }
    return use(fd, name);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** What a path is, held so it cannot be swapped while it is used: `undefined` when it does not exist. */
export interface Held {
  fd: number;
  info: Stats;
}

/**
 * Calls `use` with a handle (O_PATH) of `name` in a held directory and its metadata, or `undefined`
 * when it does not exist. Opening it has no side effect (a FIFO or device is not opened for reading).
 * A symlink there is refused: `name` comes from a real path, or from a listing of `directory`.
 */
export function withEntry<T>(directory: number, name: string, shown: string, use: (found: Held | undefined) => T): T {
  let fd: number;
  try {
    fd = openSync(at(directory, name), NODE);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return use(undefined);
    throw error;
  }
  return using(fd, (handle) => {
    const info = fstatSync(handle);
    if (info.isSymbolicLink()) throw raced(shown, name);
    return use({ fd: handle, info });
  });
}

/** withEntry for a real path `absolute` inside the root: `undefined` when it (or its directory) does not exist. */
export function withHandle<T>(realRoot: string, absolute: string, shown: string, use: (found: Held | undefined) => T): T {
  return inParent(realRoot, absolute, shown, false, (directory, name) =>
    directory === undefined ? use(undefined) : withEntry(directory, name, shown, use),
  );
}

/** At most `limit` bytes of the regular file a handle holds, read from that very file. */
export function readHeld(handle: number, limit: number): Buffer {
  return using(openSync(held(handle), O_RDONLY | O_NONBLOCK), (fd) => {
    const size = Math.min(fstatSync(fd).size, limit);
    const bytes = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const read = readSync(fd, bytes, filled, size - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return bytes.subarray(0, filled);
  });
}

export interface WriteOptions {
  /** Sees what is there now (`undefined` when nothing) and throws to refuse the write. */
  check?: (existing: Stats | undefined) => void;
  /** Permission bits of a new file (an existing one keeps its own); 0o666 less the umask when absent. */
  mode?: number;
}

/**
 * Writes through a temporary file in the same directory and renames it into place, so a reader never
 * sees half a file and a crash leaves the old content; an existing file keeps its permission bits.
 * Answers whether a file was replaced. Synchronous: a model writes source files, and a thread-pool
 * round trip per step costs more than the write.
 */
export function writeInsideRoot(
  realRoot: string,
  absolute: string,
  shown: string,
  content: string | Uint8Array,
  options: WriteOptions = {},
): boolean {
  return inParent(realRoot, absolute, shown, true, (directory, name) => {
    const dir = directory as number;
    const existing = lstatSync(at(dir, name), { throwIfNoEntry: false });
    options.check?.(existing);
    const temporary = `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const mode = existing?.isFile() ? existing.mode & 0o7777 : (options.mode ?? 0o666);
    try {
      // 'wx' (O_EXCL) creates a new file and never follows a symlink planted under the temporary name;
      // rename replaces the last name itself, never what a symlink there points to.
      writeFileSync(at(dir, temporary), content, { flag: 'wx', mode });
      renameSync(at(dir, temporary), at(dir, name));
    } catch (error) {
      try {
        unlinkSync(at(dir, temporary));
      } catch {
        // nothing was created
      }
      throw error;
    }
    return existing !== undefined;
  });
}

/** Removes the file at `absolute` if it is there; a directory or a missing file is left alone. */
export function removeInsideRoot(realRoot: string, absolute: string, shown: string): void {
  inParent(realRoot, absolute, shown, false, (directory, name) => {
    if (directory === undefined) return;
    try {
      unlinkSync(at(directory, name));
    } catch {
      // gone already, or a directory: as before, nothing to do
    }
  });
}
