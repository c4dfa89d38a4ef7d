import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep, win32 } from 'node:path';
import { StagecraftError } from '@stagecraft/contracts';
import { isProtectedMetadata } from '@stagecraft/sandbox';

/** The refusal every path check answers with: the model sees the path it asked for and why. */
export const forbiddenPath = (requested: string, reason: string) =>
  new StagecraftError('FORBIDDEN_PATH', `path '${requested.replace(/\0/g, '\\0')}' is not allowed: ${reason}`, [
    { path: ['path'], message: reason },
  ]);

/** True when `candidate` is `root` itself or lies below it; both must already be absolute and normalised. */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

// Path checks are synchronous on purpose: each is a metadata lookup of a few microseconds, while an
// async call costs a thread-pool round trip (about 0.1 ms) that dominated a tool call's time.

/**
 * The real location of the deepest part of `target` that exists, with the missing tail re-attached.
 * Checking that real location (not the spelled one) is what catches a symlinked file or parent
 * directory that points out of the root. A dangling symlink is refused: whatever gets created
 * through it would land wherever it points.
 */
async function realLocation(target: string, requested: string): Promise<string> {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    try {
      return join(realpathSync.native(current), ...missing);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') throw error;
    }
    const link = lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
    if (link) throw forbiddenPath(requested, `'${current}' is a symlink to '${readlinkSync(current)}', which does not exist`);
    const parent = dirname(current);
    if (parent === current) return join(current, ...missing);
    missing.unshift(basename(current));
    current = parent;
  }
}

/**
 * Resolves a tool's path argument against the project root, or refuses it with FORBIDDEN_PATH.
 * Only relative paths are accepted; `..`, absolute paths, NUL bytes and symlinks leading out of the
 * root are refused. The answer is the real path, so callers act on what was checked; they act on it
 * through ./pinned, which refuses a symlink that appears on that path between this check and its use.
 */
export async function resolveInsideRoot(root: string, requestedPath: string): Promise<string> {
  if (requestedPath.includes('\0')) throw forbiddenPath(requestedPath, 'it contains a NUL byte');
  if (isAbsolute(requestedPath) || win32.isAbsolute(requestedPath)) {
    throw forbiddenPath(requestedPath, 'absolute paths are refused; give a path relative to the project root');
  }
  const realRoot = realpathSync.native(root);
  const spelled = resolve(realRoot, requestedPath === '' ? '.' : requestedPath);
  if (!isInside(realRoot, spelled)) throw forbiddenPath(requestedPath, 'it leaves the project root');
  const real = await realLocation(spelled, requestedPath);
  if (!isInside(realRoot, real)) throw forbiddenPath(requestedPath, 'it resolves through a symlink to a place outside the project root');
  return real;
}

/** How a path is shown back to the model: relative to the root, with `/` separators. */
export function displayPath(realRoot: string, absolute: string): string {
  return relative(realRoot, absolute).split(sep).join('/') || '.';
}

/** True when any component of a `/`- or `\\`-separated path names protected metadata (any case, any depth). */
export function touchesVcsMetadata(path: string): boolean {
  return path.split(/[\\/]/).some(isProtectedMetadata);
}

/**
 * resolveInsideRoot for a tool that writes: `.git`, `.hg` and `.svn` (a nested repository's or a
 * submodule's `.git` file included) are read-only, spelled that way or reached through a symlink.
 */
export async function resolveWritableInsideRoot(root: string, requestedPath: string): Promise<string> {
  const refuse = () =>
    forbiddenPath(requestedPath, 'version-control metadata (.git, .hg, .svn) and .stagecraft are read-only to the file tools');
  if (touchesVcsMetadata(requestedPath)) throw refuse();
  const real = await resolveInsideRoot(root, requestedPath);
  if (touchesVcsMetadata(relative(realpathSync.native(root), real))) throw refuse();
  return real;
}
