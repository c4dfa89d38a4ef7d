"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SKIPPED_DIRECTORIES = void 0;
exports.entriesOf = entriesOf;
exports.walk = walk;
const node_fs_1 = require("node:fs");
const pinned_1 = require("./sandbox/pinned");
/** Never listed into or searched: dependencies and version-control internals are not the project's code. */
exports.SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);
const kindOf = (d) => d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'directory' : d.isFile() ? 'file' : 'other';
const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
/** The entries of the directory a descriptor holds; an unreadable one has none. */
function entriesOf(directory) {
    try {
        return (0, node_fs_1.readdirSync)((0, pinned_1.held)(directory), { withFileTypes: true }).sort(byName);
    }
    catch {
        return [];
    }
}
/**
 * Depth-first, entries sorted by name, so the same tree always gives the same order. `directory` is a
 * descriptor (see ./sandbox/pinned), and each subdirectory is opened through its parent's descriptor:
 * symlinks are reported but never followed, even one swapped in mid-walk, since following one could
 * lead out of the root. Unreadable directories are skipped rather than failing the whole walk.
 */
function* walk(directory, maxDepth, prefix = '', depth = 1) {
    for (const entry of entriesOf(directory)) {
        if (exports.SKIPPED_DIRECTORIES.has(entry.name) && entry.isDirectory())
            continue;
        const item = { relative: prefix + entry.name, kind: kindOf(entry), depth };
        yield item;
        if (item.kind !== 'directory' || depth >= maxDepth)
            continue;
        const sub = subdirectory(directory, entry.name);
        if (sub === undefined)
            continue;
        try {
            yield* walk(sub, maxDepth, `${item.relative}/`, depth + 1);
        }
        finally {
            (0, node_fs_1.closeSync)(sub);
        }
    }
}
/** A subdirectory to descend into; one that vanished or turned into a symlink since it was listed is skipped. */
function subdirectory(directory, name) {
    try {
        return (0, pinned_1.openSubdirectory)(directory, name, name);
    }
    catch {
        return undefined;
    }
}
//# sourceMappingURL=walk.js.map