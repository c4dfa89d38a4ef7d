"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.checkProjectRoot = checkProjectRoot;
const node_fs_1 = require("node:fs");
const node_path_1 = require("node:path");
const contracts_1 = require("@stagecraft/contracts");
const resolve_inside_root_1 = require("./resolve-inside-root");
const tryOrNull = (f) => {
    try {
        return f();
    }
    catch {
        return null;
    }
};
const invalid = (message) => new contracts_1.StagecraftError('VALIDATION', message, [{ path: ['projectRoot'], message }]);
/**
 * The real path of a caller's project root, checked against the roots this process may serve.
 * `allowedRoots` undefined means any existing absolute directory (the embedded deployment, where the
 * caller is the user's own CLI); a list confines every call to those directories and their subtrees.
 */
async function checkProjectRoot(projectRoot, allowedRoots) {
    if (!(0, node_path_1.isAbsolute)(projectRoot) || projectRoot.includes('\0'))
        throw invalid(`projectRoot '${projectRoot}' must be an absolute path`);
    const real = tryOrNull(() => (0, node_fs_1.realpathSync)(projectRoot));
    if (!real || !(0, node_fs_1.statSync)(real).isDirectory())
        throw invalid(`projectRoot '${projectRoot}' is not an existing directory`);
    if (allowedRoots === undefined)
        return real;
    const allowed = allowedRoots.map((r) => tryOrNull(() => (0, node_fs_1.realpathSync)(r)));
    if (allowed.some((r) => r !== null && (0, resolve_inside_root_1.isInside)(r, real)))
        return real;
    const reason = `projectRoot '${projectRoot}' is outside the roots this service may touch (${allowedRoots.join(', ') || 'none configured'})`;
    throw new contracts_1.StagecraftError('FORBIDDEN_PATH', reason, [{ path: ['projectRoot'], message: reason }]);
}
//# sourceMappingURL=project-root.js.map