import { StagecraftError } from '@stagecraft/contracts';
import { memoryScopeOf, withinProjectRoots } from '@stagecraft/contracts';

/**
 * The memory scope of a request's project. A deployment that names the roots it serves refuses any
 * other project with `FORBIDDEN_PATH`, before anything is read or appended: a caller cannot read,
 * plant or merge memories in a project it does not serve.
 */
export function scopeOfProject(projectRoot: string, roots: readonly string[] | undefined): string {
  if (!withinProjectRoots(projectRoot, roots)) {
    const reason = `projectRoot '${projectRoot}' is outside the roots this deployment serves`;
    throw new StagecraftError('FORBIDDEN_PATH', reason, [{ path: ['projectRoot'], message: reason }]);
  }
  return memoryScopeOf(projectRoot);
}

/**
 * Whether a run or conversation of this root may be shown. One whose root is unknown (folded before
 * the view kept roots) is shown only where every root is served.
 */
export const servedBy =
  (roots: readonly string[] | undefined) =>
  (projectRoot: string | null | undefined): boolean =>
    roots === undefined || (typeof projectRoot === 'string' && withinProjectRoots(projectRoot, roots));
