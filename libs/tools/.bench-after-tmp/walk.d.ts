import { Dirent } from 'node:fs';
/** Never listed into or searched: dependencies and version-control internals are not the project's code. */
export declare const SKIPPED_DIRECTORIES: ReadonlySet<string>;
export interface WalkEntry {
    /** Relative to the walked directory, `/`-separated. */
    relative: string;
    kind: 'file' | 'directory' | 'symlink' | 'other';
    depth: number;
}
/** The entries of the directory a descriptor holds; an unreadable one has none. */
export declare function entriesOf(directory: number): Dirent[];
/**
 * Depth-first, entries sorted by name, so the same tree always gives the same order. `directory` is a
 * descriptor (see ./sandbox/pinned), and each subdirectory is opened through its parent's descriptor:
 * symlinks are reported but never followed, even one swapped in mid-walk, since following one could
 * lead out of the root. Unreadable directories are skipped rather than failing the whole walk.
 */
export declare function walk(directory: number, maxDepth: number, prefix?: string, depth?: number): Generator<WalkEntry>;
//# sourceMappingURL=walk.d.ts.map