import { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Never listed into or searched: dependencies and version-control internals are not the project's code. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.git']);

export interface WalkEntry {
  absolute: string;
  /** Relative to the walked directory, `/`-separated. */
  relative: string;
  kind: 'file' | 'directory' | 'symlink' | 'other';
  depth: number;
}

const kindOf = (d: Dirent): WalkEntry['kind'] =>
  d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'directory' : d.isFile() ? 'file' : 'other';
const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Depth-first, entries sorted by name, so the same tree always gives the same order. Symlinks are
 * reported but never followed: following one could lead out of the root. Unreadable directories are
 * skipped rather than failing the whole walk.
 */
export async function* walk(directory: string, maxDepth: number, prefix = '', depth = 1): AsyncGenerator<WalkEntry> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => [] as Dirent[]);
  for (const entry of entries.sort(byName)) {
    if (SKIPPED_DIRECTORIES.has(entry.name) && entry.isDirectory()) continue;
    const item: WalkEntry = { absolute: join(directory, entry.name), relative: prefix + entry.name, kind: kindOf(entry), depth };
    yield item;
    if (item.kind === 'directory' && depth < maxDepth) yield* walk(item.absolute, maxDepth, `${item.relative}/`, depth + 1);
  }
}
