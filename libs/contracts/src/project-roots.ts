import { isAbsolute, relative, resolve } from 'node:path';

/**
 * Whether a project root is one of the roots a deployment serves, or inside one, by its resolved path
 * (the same path its memory scope is derived from); `roots` undefined: any (the embedded CLI). Lexical
 * on purpose: the services that answer reads and memory requests may not see the project's files,
 * and a symlink inside a root names its own scope, never its target's.
 */
export function withinProjectRoots(projectRoot: string, roots: readonly string[] | undefined): boolean {
  if (roots === undefined) return true;
  const path = resolve(projectRoot);
  return roots.some((root) => {
    const rest = relative(resolve(root), path);
    return rest === '' || (rest !== '..' && !rest.startsWith('../') && !isAbsolute(rest));
  });
}
