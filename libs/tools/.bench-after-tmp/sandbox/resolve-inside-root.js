"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.forbiddenPath = void 0;
exports.isInside = isInside;
exports.resolveInsideRoot = resolveInsideRoot;
exports.displayPath = displayPath;
exports.touchesVcsMetadata = touchesVcsMetadata;
exports.resolveWritableInsideRoot = resolveWritableInsideRoot;
const node_fs_1 = require("node:fs");
const node_path_1 = require("node:path");
const contracts_1 = require("@stagecraft/contracts");
/** The refusal every path check answers with: the model sees the path it asked for and why. */
const forbiddenPath = (requested, reason) => new contracts_1.StagecraftError('FORBIDDEN_PATH', `path '${requested.replace(/\0/g, '\\0')}' is not allowed: ${reason}`, [
    { path: ['path'], message: reason },
]);
exports.forbiddenPath = forbiddenPath;
/** True when `candidate` is `root` itself or lies below it; both must already be absolute and normalised. */
function isInside(root, candidate) {
    const rel = (0, node_path_1.relative)(root, candidate);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${node_path_1.sep}`) && !(0, node_path_1.isAbsolute)(rel));
}
const errorCode = (error) => error.code;
// Path checks are synchronous on purpose: each is a metadata lookup of a few microseconds, while an
// async call costs a thread-pool round trip (about 0.1 ms) that dominated a tool call's time.
/**
 * The real location of the deepest part of `target` that exists, with the missing tail re-attached.
 * Checking that real location (not the spelled one) is what catches a symlinked file or parent
 * directory that points out of the root. A dangling symlink is refused: whatever gets created
 * through it would land wherever it points.
 */
async function realLocation(target, requested) {
    const missing = [];
    let current = target;
    for (;;) {
        try {
            return (0, node_path_1.join)(node_fs_1.realpathSync.native(current), ...missing);
        }
        catch (error) {
            if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR')
                throw error;
        }
        const link = (0, node_fs_1.lstatSync)(current, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
        if (link)
            throw (0, exports.forbiddenPath)(requested, `'${current}' is a symlink to '${(0, node_fs_1.readlinkSync)(current)}', which does not exist`);
        const parent = (0, node_path_1.dirname)(current);
        if (parent === current)
            return (0, node_path_1.join)(current, ...missing);
        missing.unshift((0, node_path_1.basename)(current));
        current = parent;
    }
}
/**
 * Resolves a tool's path argument against the project root, or refuses it with FORBIDDEN_PATH.
 * Only relative paths are accepted; `..`, absolute paths, NUL bytes and symlinks leading out of the
 * root are refused. The answer is the real path, so callers act on what was checked; they act on it
 * through ./pinned, which refuses a symlink that appears on that path between this check and its use.
 */
async function resolveInsideRoot(root, requestedPath) {
    if (requestedPath.includes('\0'))
        throw (0, exports.forbiddenPath)(requestedPath, 'it contains a NUL byte');
    if ((0, node_path_1.isAbsolute)(requestedPath) || node_path_1.win32.isAbsolute(requestedPath)) {
        throw (0, exports.forbiddenPath)(requestedPath, 'absolute paths are refused; give a path relative to the project root');
    }
    const realRoot = node_fs_1.realpathSync.native(root);
    const spelled = (0, node_path_1.resolve)(realRoot, requestedPath === '' ? '.' : requestedPath);
    if (!isInside(realRoot, spelled))
        throw (0, exports.forbiddenPath)(requestedPath, 'it leaves the project root');
    const real = await realLocation(spelled, requestedPath);
    if (!isInside(realRoot, real))
        throw (0, exports.forbiddenPath)(requestedPath, 'it resolves through a symlink to a place outside the project root');
    return real;
}
/** How a path is shown back to the model: relative to the root, with `/` separators. */
function displayPath(realRoot, absolute) {
    return (0, node_path_1.relative)(realRoot, absolute).split(node_path_1.sep).join('/') || '.';
}
/** Version-control metadata: its hooks and config run commands on the host, so the file tools never write there. */
const VCS_METADATA = new Set(['.git', '.hg', '.svn']);
/** True when any component of a `/`- or `\\`-separated path names version-control metadata (any case, any depth). */
function touchesVcsMetadata(path) {
    return path.split(/[\\/]/).some((part) => VCS_METADATA.has(part.toLowerCase()));
}
/**
 * resolveInsideRoot for a tool that writes: `.git`, `.hg` and `.svn` (a nested repository's or a
 * submodule's `.git` file included) are read-only, spelled that way or reached through a symlink.
 */
async function resolveWritableInsideRoot(root, requestedPath) {
    const refuse = () => (0, exports.forbiddenPath)(requestedPath, 'version-control metadata (.git, .hg, .svn) is read-only to the file tools');
    if (touchesVcsMetadata(requestedPath))
        throw refuse();
    const real = await resolveInsideRoot(root, requestedPath);
    if (touchesVcsMetadata((0, node_path_1.relative)(node_fs_1.realpathSync.native(root), real)))
        throw refuse();
    return real;
}
//# sourceMappingURL=resolve-inside-root.js.map