"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.indexProjectKey = exports.INDEX_FILE_MAX_BYTES = void 0;
exports.indexFile = indexFile;
exports.indexProject = indexProject;
const node_crypto_1 = require("node:crypto");
const node_path_1 = require("node:path");
const index_1 = require("@stagecraft/index");
const parsers_1 = require("./parsers");
const pinned_1 = require("../sandbox/pinned");
const scan_1 = require("./scan");
/** Larger files are listed with their size, not parsed. */
exports.INDEX_FILE_MAX_BYTES = 1024 * 1024;
const sha256 = (data) => (0, node_crypto_1.createHash)('sha256').update(data).digest('hex');
/** The `index-<project>` stream's key for a project root: a digest of its real path. */
const indexProjectKey = (root) => sha256(root).slice(0, 24);
exports.indexProjectKey = indexProjectKey;
let parse;
const parser = () => (parse ??= (0, parsers_1.loadParsers)(index_1.PARSED_LANGUAGES));
/** One file as the index records it, or null when it is gone or not a regular file. */
async function indexFile(root, path, parseSource, previous) {
    const file = readIndexable(root, path);
    if (!file)
        return null;
    const { info, bytes } = file;
    const language = (0, index_1.languageOf)(path);
    const base = path.slice(path.lastIndexOf('/') + 1);
    if (!bytes)
        return { path, language, size: info.size, hash: sha256(`size:${info.size}`), symbols: [], entryPoints: [] };
    const hash = sha256(bytes);
    if (previous && previous.hash === hash && previous.size === info.size)
        return previous;
    if (language === 'other' && base !== 'package.json')
        return { path, language, size: info.size, hash, symbols: [], entryPoints: [] };
    const found = (0, index_1.indexSource)(path, bytes.toString('utf8'), parseSource ?? (await parser()));
    return { path, language: found.language, size: info.size, hash, symbols: found.symbols, entryPoints: found.entryPoints };
}
/** A regular file's metadata, and its bytes unless it is too large; read through ./sandbox/pinned, so never through a symlink. */
function readIndexable(root, path) {
    try {
        return (0, pinned_1.withHandle)(root, (0, node_path_1.join)(root, path), path, (found) => {
            if (!found?.info.isFile())
                return null;
            const bytes = found.info.size <= exports.INDEX_FILE_MAX_BYTES ? (0, pinned_1.readHeld)(found.fd, exports.INDEX_FILE_MAX_BYTES) : null;
            return { info: found.info, bytes };
        });
    }
    catch {
        return null;
    }
}
const sameFile = (a, b) => a === b || (a !== undefined && a.hash === b.hash && a.size === b.size);
/**
 * What changed since `previous`: every kept file of the tree (when `paths` is absent), or only the
 * named paths (after an edit). Unchanged files are left out; files gone or now ignored are removed.
 */
async function indexProject(root, previous, paths) {
    const gitignore = new scan_1.GitIgnore(root);
    const parseSource = await parser();
    const candidates = paths ? [...new Set(paths)].sort() : await (0, scan_1.listProjectFiles)(root, gitignore);
    const files = [];
    const removed = [];
    for (const path of candidates) {
        const file = (await gitignore.ignores(path, false)) ? null : await indexFile(root, path, parseSource, previous?.files.get(path));
        if (!file) {
            if (previous?.files.has(path))
                removed.push(path);
            continue;
        }
        if (!sameFile(previous?.files.get(path), file))
            files.push(file);
    }
    if (!paths && previous) {
        const kept = new Set(candidates);
        for (const path of previous.files.keys())
            if (!kept.has(path))
                removed.push(path);
    }
    removed.sort();
    return { root, files, removed };
}
//# sourceMappingURL=build.js.map