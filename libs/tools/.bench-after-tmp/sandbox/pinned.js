"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.openRoot = exports.held = exports.at = void 0;
exports.using = using;
exports.openSubdirectory = openSubdirectory;
exports.inParent = inParent;
exports.withHandle = withHandle;
exports.readHeld = readHeld;
exports.writeInsideRoot = writeInsideRoot;
exports.removeInsideRoot = removeInsideRoot;
const node_fs_1 = require("node:fs");
const node_crypto_1 = require("node:crypto");
const node_path_1 = require("node:path");
const resolve_inside_root_1 = require("./resolve-inside-root");
// Race-free access below a project root. A model's `run_command` runs beside the file tools and can
// turn a directory into a symlink between a path check and its use, so nothing here is looked up by
// its full name: every path is opened one component at a time, each relative to a descriptor of the
// one before (Linux's /proc/self/fd/N/name resolves `name` in the directory N holds, whatever its path
// has become), and no component is followed if it is a symlink. Paths handed in are the real paths
// resolveInsideRoot answered, so a symlink met on the way is one that appeared after the check.
/** Linux's O_PATH (absent from fs.constants): a handle that neither reads nor runs open side effects. */
const O_PATH = 0o10000000;
const { O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_RDONLY } = node_fs_1.constants;
const DIRECTORY = O_PATH | O_DIRECTORY | O_NOFOLLOW;
const NODE = O_PATH | O_NOFOLLOW;
/** `name` inside the directory a descriptor holds. */
const at = (directory, name) => `/proc/self/fd/${directory}/${name}`;
exports.at = at;
/** The object a descriptor holds, to list or reopen it. */
const held = (fd) => `/proc/self/fd/${fd}`;
exports.held = held;
const errorCode = (error) => error.code;
/** Calls `use` with `fd`, closing it afterwards whatever happens. */
function using(fd, use) {
    try {
        return use(fd);
    }
    finally {
        (0, node_fs_1.closeSync)(fd);
    }
}
const raced = (shown, name) => (0, resolve_inside_root_1.forbiddenPath)(shown, `'${name}' became a symlink while the path was in use`);
const notADirectory = (shown, name) => Object.assign(new Error(`'${shown}' cannot be used: its part '${name}' is not a directory`), { code: 'ENOTDIR' });
/**
 * The subdirectory `name` of `directory`, created first when `create` is set; undefined when it does
 * not exist (or is not a directory) and nothing is to be created. A symlink there is refused.
 */
function openSubdirectory(directory, name, shown, create = false) {
    for (let attempt = 0;; attempt += 1) {
        try {
            return (0, node_fs_1.openSync)((0, exports.at)(directory, name), DIRECTORY);
        }
        catch (error) {
            const code = errorCode(error);
            if (code === 'ENOENT' && create && attempt === 0) {
                try {
                    (0, node_fs_1.mkdirSync)((0, exports.at)(directory, name));
                }
                catch (made) {
                    if (errorCode(made) !== 'EEXIST')
                        throw made;
                }
                continue;
            }
            if (code === 'ENOENT')
                return undefined;
            if (code !== 'ENOTDIR' && code !== 'ELOOP')
                throw error;
            if ((0, node_fs_1.lstatSync)((0, exports.at)(directory, name), { throwIfNoEntry: false })?.isSymbolicLink())
                throw raced(shown, name);
            if (create)
                throw notADirectory(shown, name);
            return undefined;
        }
    }
}
/** The real root, opened by its name: the root itself is the one path a model cannot move. */
const openRoot = (realRoot) => (0, node_fs_1.openSync)(realRoot, DIRECTORY);
exports.openRoot = openRoot;
/** Components of a real path below the root; none for the root itself. */
function partsOf(realRoot, absolute, shown) {
    const rel = (0, node_path_1.relative)(realRoot, absolute);
    const parts = rel === '' ? [] : rel.split(node_path_1.sep);
    // `..` through a descriptor would climb out of the directory it holds.
    if ((0, node_path_1.isAbsolute)(rel) || parts.includes('..'))
        throw (0, resolve_inside_root_1.forbiddenPath)(shown, 'it leaves the project root');
    return parts;
}
/**
 * Calls `use` with a descriptor of the directory that holds `absolute` and the last name of the path
 * (`.` for the root itself), or with `undefined` when that directory does not exist and `create` is
 * not set. Missing directories are created, one by one, when it is.
 */
function inParent(realRoot, absolute, shown, create, use) {
    const parts = partsOf(realRoot, absolute, shown);
    const name = parts.pop() ?? '.';
    let fd = (0, exports.openRoot)(realRoot);
    try {
        for (const part of parts) {
            const next = openSubdirectory(fd, part, shown, create);
            (0, node_fs_1.closeSync)(fd);
            fd = next;
            if (fd === undefined)
                break;
        }
        return use(fd, name);
    }
    finally {
        if (fd !== undefined)
            (0, node_fs_1.closeSync)(fd);
    }
}
/**
 * Calls `use` with a handle (O_PATH) of `absolute` and its metadata, or `undefined` when it does not
 * exist. Opening it has no side effect (a FIFO or device is not opened for reading). A symlink where the
 * real path had none is refused.
 */
function withHandle(realRoot, absolute, shown, use) {
    return inParent(realRoot, absolute, shown, false, (directory, name) => {
        if (directory === undefined)
            return use(undefined);
        let fd;
        try {
            fd = (0, node_fs_1.openSync)((0, exports.at)(directory, name), NODE);
        }
        catch (error) {
            if (errorCode(error) === 'ENOENT')
                return use(undefined);
            throw error;
        }
        return using(fd, (handle) => {
            const info = (0, node_fs_1.fstatSync)(handle);
            if (info.isSymbolicLink())
                throw raced(shown, name);
            return use({ fd: handle, info });
        });
    });
}
/** At most `limit` bytes of the regular file a handle holds, read from that very file. */
function readHeld(handle, limit) {
    return using((0, node_fs_1.openSync)((0, exports.held)(handle), O_RDONLY | O_NONBLOCK), (fd) => {
        const size = Math.min((0, node_fs_1.fstatSync)(fd).size, limit);
        const bytes = Buffer.allocUnsafe(size);
        let filled = 0;
        while (filled < size) {
            const read = (0, node_fs_1.readSync)(fd, bytes, filled, size - filled, null);
            if (read === 0)
                break;
            filled += read;
        }
        return bytes.subarray(0, filled);
    });
}
/**
 * Writes through a temporary file in the same directory and renames it into place, so a reader never
 * sees half a file and a crash leaves the old content; an existing file keeps its permission bits.
 * `check` sees what is there now (`undefined` when nothing) and throws to refuse. Answers whether a
 * file was replaced. Synchronous: a model writes source files, and a thread-pool round trip per step
 * costs more than the write.
 */
function writeInsideRoot(realRoot, absolute, shown, content, check = () => undefined) {
    return inParent(realRoot, absolute, shown, true, (directory, name) => {
        const dir = directory;
        const existing = (0, node_fs_1.lstatSync)((0, exports.at)(dir, name), { throwIfNoEntry: false });
        check(existing);
        const temporary = `.${name}.${process.pid}.${(0, node_crypto_1.randomBytes)(6).toString('hex')}.tmp`;
        // 'wx' (O_EXCL) creates a new file and never follows a symlink planted under the temporary name.
        const mode = existing?.isFile() ? existing.mode & 0o7777 : 0o666;
        try {
            (0, node_fs_1.writeFileSync)((0, exports.at)(dir, temporary), content, { flag: 'wx', mode });
            (0, node_fs_1.renameSync)((0, exports.at)(dir, temporary), (0, exports.at)(dir, name));
        }
        catch (error) {
            try {
                (0, node_fs_1.unlinkSync)((0, exports.at)(dir, temporary));
            }
            catch {
                // nothing was created
            }
            throw error;
        }
        return existing !== undefined;
    });
}
/** Removes the file at `absolute` if it is there; a directory or a missing file is left alone. */
function removeInsideRoot(realRoot, absolute, shown) {
    inParent(realRoot, absolute, shown, false, (directory, name) => {
        if (directory === undefined)
            return;
        try {
            (0, node_fs_1.unlinkSync)((0, exports.at)(directory, name));
        }
        catch {
            // gone already, or a directory: as before, nothing to do
        }
    });
}
//# sourceMappingURL=pinned.js.map