import { resolve } from 'node:path';
import { StagecraftError } from '@stagecraft/contracts';
import { checkProjectRoot, isInside } from '@stagecraft/tools';
import type { McpContext } from './context';

const configError = (message: string, path: string) =>
  new StagecraftError('VALIDATION', `invalid configuration: ${message}`, [{ path: [path], message }]);

/**
 * The directories tool calls may name: STAGECRAFT_PROJECT_ROOTS when set (--root must lie inside it),
 * else --root alone. Over HTTP one of them is required, since the caller is not the user of this
 * process; on stdio without either, any directory (the client is the user's own, as with `stagecraft chat`).
 */
export function allowedRootsOf(root: string | undefined, projectRoots: readonly string[] | undefined, http: boolean): string[] | undefined {
  const flagRoot = root === undefined ? undefined : resolve(root);
  if (projectRoots !== undefined) {
    if (flagRoot !== undefined && !projectRoots.some((allowed) => isInside(allowed, flagRoot)))
      throw configError(`--root ${flagRoot} is outside STAGECRAFT_PROJECT_ROOTS (${projectRoots.join(', ')})`, 'root');
    return [...projectRoots];
  }
  if (flagRoot !== undefined) return [flagRoot];
  if (http) throw configError('--http needs --root or STAGECRAFT_PROJECT_ROOTS: the directories its clients may work in', 'root');
  return undefined;
}

/**
 * The project root a call works in (its own, or the server's --root), as its real path, checked
 * against the allowed roots: `..`, symbolic links and `/` are refused with FORBIDDEN_PATH before
 * anything is asked of the system.
 */
export async function projectRootOf(context: McpContext, root: string | undefined): Promise<string> {
  const chosen = root ?? context.root;
  if (!chosen)
    throw new StagecraftError('VALIDATION', 'no project root: pass root, or start the server with --root', [
      { path: ['root'], message: 'required when the server has no --root' },
    ]);
  try {
    return await checkProjectRoot(resolve(chosen), context.allowedRoots);
  } catch (error) {
    if (!(error instanceof StagecraftError)) throw error;
    // The check speaks of the subjects' `projectRoot`; the tool's argument is `root`.
    throw new StagecraftError(error.code, error.message, [{ path: ['root'], message: error.message }]);
  }
}
