import { closeSync, constants, fstatSync, mkdirSync, openSync, readlinkSync, Stats } from 'node:fs';
import type { PinnedPath } from './bwrap-args';
import { lstat, mkdtemp, readdir, rename } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

/**
 * What a command or a file tool never writes, whatever the project: version-control metadata holds what
 * the host executes later, outside any sandbox (git's hooks and `core.fsmonitor` / `core.hooksPath` in
 * `.git/config`, Mercurial's `[hooks]` in `.hg/hgrc`), and `.stagecraft` holds Stagecraft's own state
 * in the project (agents' worktrees, an embedded event log), which a model must not rewrite or point
 * elsewhere with a symlink. The one list both the sandbox and the file tools read.
 */
export const PROTECTED_METADATA = ['.git', '.hg', '.svn', '.stagecraft'] as const;
const PROTECTED: ReadonlySet<string> = new Set(PROTECTED_METADATA);

/** True for a path component naming protected metadata, in any case (case-insensitive file systems exist). */
export const isProtectedMetadata = (name: string): boolean => PROTECTED.has(name.toLowerCase());

/**
 * How far the search for nested repositories (vendored clones, submodules' `.git` files) goes. The
 * walk runs before and after every command, so a huge tree must not stall each call; what lies past
 * the bound is not protected, and the walk says it stopped.
 */
export interface WalkBounds {
  maxDepth: number;
  maxEntries: number;
}

// About 50 ms for 20,000 entries here: paid twice per command.
export const WALK_BOUNDS: WalkBounds = { maxDepth: 16, maxEntries: 20_000 };

/**
 * Not walked: dependencies and caches that package managers and build tools fill (without `.git`:
 * they drop it), which can hold hundreds of thousands of entries and would use up the bound before
 * the project's own directories, where a user actually runs git.
 */
const SKIPPED = new Set(['node_modules', '.venv', 'venv', '__pycache__', '.cache', '.nx', '.gradle', '.tox', 'target']);

export interface Found {
  /** Identity of the entry (an inode number is reused, a birth time is not), so one swapped for another counts as new. */
  id: string;
  /** Directories and regular files; a symlink is never bound (its target is what a bind would expose). */
  bindable: boolean;
  /** Creation time (ms since the epoch): no system call sets it, so a command cannot backdate an entry. */
  born: number;
}

export interface MetadataScan {
  /** Absolute path → identity, for every metadata entry found. */
  entries: Map<string, Found>;
  /** True when the bounds stopped the walk before the whole tree was seen. */
  incomplete: boolean;
  /** When the walk began (ms since the epoch). */
  at: number;
  /** The directories whose entries the walk read: the root always. */
  visited: Set<string>;
}

const found = (stat: Stats): Found => ({
  id: `${stat.dev}:${stat.ino}:${stat.mode}:${stat.birthtimeMs}`,
  bindable: stat.isDirectory() || stat.isFile(),
  born: stat.birthtimeMs,
});

/**
 * Every `.git`, `.hg`, `.svn` and `.stagecraft` under the root, the root's own always (they are looked up by name,
 * outside the bounds), nested ones breadth-first within the bounds. Symlinks are never followed.
 */
export async function scanMetadata(root: string, bounds: WalkBounds = WALK_BOUNDS): Promise<MetadataScan> {
  const at = Date.now();
  const entries = new Map<string, Found>();
  for (const name of PROTECTED_METADATA) {
    const stat = await lstat(join(root, name)).catch(() => null);
    if (stat) entries.set(join(root, name), found(stat));
  }
  const visited = new Set<string>();
  let seen = 0;
  let incomplete = false;
  let level = [root];
  for (let depth = 1; level.length > 0; depth += 1) {
    const next: string[] = [];
    for (const dir of level) {
      const children = await readdir(dir, { withFileTypes: true }).catch(() => []);
      seen += children.length;
      if (seen > bounds.maxEntries) return { entries, incomplete: true, at, visited: visited.add(root) };
      visited.add(dir);
      for (const child of children) {
        const path = join(dir, child.name);
        if (isProtectedMetadata(child.name)) {
          if (dir !== root) {
            const stat = await lstat(path).catch(() => null);
            if (stat) entries.set(path, found(stat));
          }
        } else if (child.isDirectory() && !SKIPPED.has(child.name)) {
          next.push(path);
        }
      }
    }
    if (depth === bounds.maxDepth && next.length > 0) {
      incomplete = true;
      break;
    }
    level = next;
  }
  return { entries, incomplete, at, visited };
}

/**
 * `.stagecraft` is made (empty) before a command runs, so it is always there to be bound read-only: a
 * command can neither create it nor put a symlink in its place, and the host creating it for a
 * workflow's worktrees while a command runs is never taken for metadata the command made. Where the
 * root cannot be written, the command runs without it (and one it makes is quarantined).
 */
export function ensureStateDirectory(root: string): void {
  try {
    mkdirSync(join(root, '.stagecraft'));
  } catch {
    // There already, or a root this process may not write.
  }
}

/** Linux's O_PATH: a handle on the entry itself, which opens nothing (a FIFO named `.git` cannot block it). */
const O_PATH = 0o10000000;

/** Past this many, further nested entries are left unbound (and the result says the search stopped). */
export const MAX_PINNED = 256;

/**
 * Opens every bindable entry of the scan, checking that the descriptor is the very entry the walk saw,
 * at that very path: the bind then mounts what was checked, whatever the path has become by the time
 * bwrap gets to it. An entry that changed meanwhile means something else is writing the root: the
 * call stops rather than bind a path it did not check.
 */
export function pinMetadata(scan: MetadataScan): { pinned: PinnedPath[]; complete: boolean } {
  const bindable = [...scan.entries].filter(([, f]) => f.bindable);
  const pinned: PinnedPath[] = [];
  try {
    for (const [path, expected] of bindable.slice(0, MAX_PINNED)) {
      const fd = openSync(path, O_PATH | constants.O_NOFOLLOW);
      pinned.push({ path, fd });
      if (readlinkSync(`/proc/self/fd/${fd}`) !== path || found(fstatSync(fd)).id !== expected.id)
        throw new Error(`${path} changed while the command's sandbox was being set up; run the command again`);
    }
  } catch (error) {
    unpin(pinned);
    throw error;
  }
  return { pinned, complete: bindable.length <= MAX_PINNED };
}

export const unpin = (pinned: readonly PinnedPath[]) => pinned.forEach(({ fd }) => closeSync(fd));

/**
 * Metadata that appeared during a command (a `git init` in a root without a repository, a nested
 * clone, an entry swapped for another) is moved into a new `.stagecraft-quarantine-XXXXXX` directory
 * under a name git does not look for: the user's data is kept, and no host tool runs from it. The
 * directory is created here, with a name the command could not guess, so it cannot be a symlink the
 * command planted to send the move elsewhere.
 */
export async function quarantineNew(root: string, before: MetadataScan, after: MetadataScan): Promise<string[]> {
  // Where the first walk stopped short, the second may reach further: past the first walk's reach an
  // entry is new only if it was created after that walk began (file times come from a coarse clock
  // that may lag the system time by a tick, hence the slack).
  const isNew = (path: string, now: Found) =>
    before.entries.get(path)?.id !== now.id && (!before.incomplete || before.visited.has(dirname(path)) || now.born >= before.at - 50);
  const appeared = [...after.entries]
    .filter(([path, now]) => isNew(path, now))
    .map(([path]) => path)
    // Outermost first: moving a new `.git` moves whatever new metadata it holds with it.
    .sort((a, b) => a.length - b.length);
  const moved: string[] = [];
  if (appeared.length === 0) return moved;
  const into = await mkdtemp(join(root, '.stagecraft-quarantine-'));
  for (const path of appeared) {
    const name = relative(root, path);
    const target = join(into, `${name.split('/').join('~')}.quarantined`);
    try {
      await rename(path, target);
      moved.push(`${name} -> ${relative(root, target)}`);
    } catch (error) {
      // Moved with an outer entry already, or gone.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return moved;
}
