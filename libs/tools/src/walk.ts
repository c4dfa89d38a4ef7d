import { Dirent, closeSync, readdirSync } from 'node:fs';
import { held, openSubdirectory } from './sandbox/pinned';

/** Never listed into or searched: dependencies and version-control internals are not the project's code. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.git']);

export interface WalkEntry {
  /** Relative to the walked directory, `/`-separated. */
  relative: string;
  kind: 'file' | 'directory' | 'symlink' | 'other';
  depth: number;
}

const kindOf = (d: Dirent): WalkEntry['kind'] =>
  d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'directory' : d.isFile() ? 'file' : 'other';
const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The entries of the directory a descriptor holds; an unreadable one has none. */
export function entriesOf(directory: number): Dirent[] {
  try {
    return readdirSync(held(directory), { withFileTypes: true }).sort(byName);
  } catch {
    return [];
  }
}

/**
 * Depth-first, entries sorted by name, so the same tree always gives the same order. `directory` is a
 * descriptor (see ./sandbox/pinned), and each subdirectory is opened through its parent's descriptor:
 * symlinks are reported but never followed, even one swapped in mid-walk, since following one could
 * lead out of the root. Unreadable directories are skipped rather than failing the whole walk.
 */
export function* walk(directory: number, maxDepth: number, prefix = '', depth = 1): Generator<WalkEntry> {
  for (const entry of entriesOf(directory)) {
    if (SKIPPED_DIRECTORIES.has(entry.name) && entry.isDirectory()) continue;
    const item: WalkEntry = { relative: prefix + entry.name, kind: kindOf(entry), depth };
    yield item;
    if (item.kind !== 'directory' || depth >= maxDepth) continue;
    const sub = subdirectory(directory, entry.name);
    if (sub === undefined) continue;
    try {
      yield* walk(sub, maxDepth, `${item.relative}/`, depth + 1);
    } finally {
      closeSync(sub);
    }
  }
}

/** A subdirectory to descend into; one that vanished or turned into a symlink since it was listed is skipped. */
function subdirectory(directory: number, name: string): number | undefined {
  try {
    return openSubdirectory(directory, name, name);
  } catch {
    return undefined;
  }
}
