import { realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { StagecraftError } from '@stagecraft/contracts';
import { isInside } from './resolve-inside-root';

const tryOrNull = <T>(f: () => T): T | null => {
  try {
    return f();
  } catch {
    return null;
  }
};

const invalid = (message: string) => new StagecraftError('VALIDATION', message, [{ path: ['projectRoot'], message }]);

/**
 * The real path of a caller's project root, checked against the roots this process may serve.
 * `allowedRoots` undefined means any existing absolute directory (the embedded deployment, where the
 * caller is the user's own CLI); a list confines every call to those directories and their subtrees.
 */
export async function checkProjectRoot(projectRoot: string, allowedRoots?: readonly string[]): Promise<string> {
  if (!isAbsolute(projectRoot) || projectRoot.includes('\0')) throw invalid(`projectRoot '${projectRoot}' must be an absolute path`);
  const real = tryOrNull(() => realpathSync(projectRoot));
  if (!real || !statSync(real).isDirectory()) throw invalid(`projectRoot '${projectRoot}' is not an existing directory`);
  if (allowedRoots === undefined) return real;
  const allowed = allowedRoots.map((r) => tryOrNull(() => realpathSync(r)));
  if (allowed.some((r) => r !== null && isInside(r, real))) return real;
  const reason = `projectRoot '${projectRoot}' is outside the roots this service may touch (${allowedRoots.join(', ') || 'none configured'})`;
  throw new StagecraftError('FORBIDDEN_PATH', reason, [{ path: ['projectRoot'], message: reason }]);
}
