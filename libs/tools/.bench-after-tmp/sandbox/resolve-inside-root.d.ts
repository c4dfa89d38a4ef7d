import { StagecraftError } from '@stagecraft/contracts';
/** The refusal every path check answers with: the model sees the path it asked for and why. */
export declare const forbiddenPath: (requested: string, reason: string) => StagecraftError;
/** True when `candidate` is `root` itself or lies below it; both must already be absolute and normalised. */
export declare function isInside(root: string, candidate: string): boolean;
/**
 * Resolves a tool's path argument against the project root, or refuses it with FORBIDDEN_PATH.
 * Only relative paths are accepted; `..`, absolute paths, NUL bytes and symlinks leading out of the
 * root are refused. The answer is the real path, so callers act on what was checked; they act on it
 * through ./pinned, which refuses a symlink that appears on that path between this check and its use.
 */
export declare function resolveInsideRoot(root: string, requestedPath: string): Promise<string>;
/** How a path is shown back to the model: relative to the root, with `/` separators. */
export declare function displayPath(realRoot: string, absolute: string): string;
/** True when any component of a `/`- or `\\`-separated path names version-control metadata (any case, any depth). */
export declare function touchesVcsMetadata(path: string): boolean;
/**
 * resolveInsideRoot for a tool that writes: `.git`, `.hg` and `.svn` (a nested repository's or a
 * submodule's `.git` file included) are read-only, spelled that way or reached through a symlink.
 */
export declare function resolveWritableInsideRoot(root: string, requestedPath: string): Promise<string>;
//# sourceMappingURL=resolve-inside-root.d.ts.map