"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.GitIgnore = exports.ALWAYS_SKIPPED = void 0;
exports.listProjectFiles = listProjectFiles;
const node_fs_1 = require("node:fs");
const node_path_1 = require("node:path");
const ignore_1 = __importDefault(require("ignore"));
const pinned_1 = require("../sandbox/pinned");
const walk_1 = require("../walk");
/** Never indexed or searched, whatever `.gitignore` says: dependencies, version control, build output. */
exports.ALWAYS_SKIPPED = new Set(['node_modules', '.git', 'dist']);
/** A `.gitignore` larger than this is not a list of rules; it is left out. */
const GITIGNORE_MAX_BYTES = 1024 * 1024;
/** The text of a regular file below the real root, or null; read through ./sandbox/pinned, so never through a symlink. */
function readSmallFile(root, relativePath, limit) {
    try {
        return (0, pinned_1.withHandle)(root, (0, node_path_1.join)(root, relativePath), relativePath, (found) => found?.info.isFile() && found.info.size <= limit ? (0, pinned_1.readHeld)(found.fd, limit).toString('utf8') : null);
    }
    catch {
        return null;
    }
}
/** Decides whether a path of the tree is ignored by the `.gitignore` files on its way (nested ones too). */
class GitIgnore {
    root;
    cache = new Map();
    /** `root` is the real path of the project root. */
    constructor(root) {
        this.root = root;
    }
    rulesOf(folder) {
        let rules = this.cache.get(folder);
        if (rules === undefined) {
            const text = readSmallFile(this.root, `${folder}.gitignore`, GITIGNORE_MAX_BYTES);
            rules = text === null ? null : { base: folder, rules: (0, ignore_1.default)().add(text) };
            this.cache.set(folder, rules);
        }
        return rules;
    }
    /** `relative` is `/`-separated; folders are checked with a trailing `/`. */
    async ignores(relative, isDirectory) {
        const parts = relative.split('/');
        if (parts.some((p) => exports.ALWAYS_SKIPPED.has(p)))
            return true;
        for (let depth = 0; depth < parts.length; depth += 1) {
            const folder = parts.slice(0, depth).join('/');
            const rules = this.rulesOf(folder ? `${folder}/` : '');
            if (!rules)
                continue;
            const rest = parts.slice(depth).join('/') + (isDirectory ? '/' : '');
            if (rules.rules.ignores(rest))
                return true;
            // A parent folder that is ignored hides everything under it.
            for (let k = depth + 1; k < parts.length; k += 1)
                if (rules.rules.ignores(`${parts.slice(depth, k).join('/')}/`))
                    return true;
        }
        return false;
    }
}
exports.GitIgnore = GitIgnore;
/** The directory `under` (`/`-separated, relative to the real root) opened through descriptors, or undefined. */
function openUnder(root, under) {
    let fd = (0, pinned_1.openRoot)(root);
    for (const part of under.split('/').filter((p) => p !== '' && p !== '.')) {
        let next;
        try {
            next = part === '..' ? undefined : (0, pinned_1.openSubdirectory)(fd, part, under);
        }
        finally {
            (0, node_fs_1.closeSync)(fd);
        }
        fd = next;
        if (fd === undefined)
            return undefined;
    }
    return fd;
}
/**
 * Every file of the tree that `.gitignore` keeps, `/`-separated and sorted. `root` is the real path of
 * the project root; each folder is opened through its parent's descriptor, so symlinks are never
 * followed, not even one swapped in while the tree is walked.
 */
async function listProjectFiles(root, gitignore = new GitIgnore(root), under = '') {
    const files = [];
    const visit = async (directory, folder) => {
        for (const entry of (0, walk_1.entriesOf)(directory)) {
            const relative = folder ? `${folder}/${entry.name}` : entry.name;
            if (entry.isDirectory()) {
                if (await gitignore.ignores(relative, true))
                    continue;
                let sub;
                try {
                    sub = (0, pinned_1.openSubdirectory)(directory, entry.name, relative);
                }
                catch {
                    sub = undefined; // turned into a symlink since it was listed
                }
                if (sub === undefined)
                    continue;
                try {
                    await visit(sub, relative);
                }
                finally {
                    (0, node_fs_1.closeSync)(sub);
                }
            }
            else if (entry.isFile() && !(await gitignore.ignores(relative, false)))
                files.push(relative);
        }
    };
    if (under !== '' && (await gitignore.ignores(under, true)))
        return files;
    const start = openUnder(root, under);
    if (start === undefined)
        return files;
    try {
        await visit(start, under);
    }
    finally {
        (0, node_fs_1.closeSync)(start);
    }
    return files;
}
//# sourceMappingURL=scan.js.map