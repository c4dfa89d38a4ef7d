import { StagecraftError, memoryScopeOf, withinProjectRoots } from '@stagecraft/contracts';
import { rootOfConversation, rootOfRun, runsModel } from '@stagecraft/read-models';
import type { MemoryDeps } from './dependencies';

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

/** Whether the run or conversation belongs to a served project, by the runs view at the same position. */
export async function servesRunOrConversation(
  { views, projectRoots }: Pick<MemoryDeps, 'views' | 'projectRoots'>,
  query: { runId?: string; conversationId?: string },
  minPosition: string | undefined,
): Promise<boolean> {
  if (projectRoots === undefined) return true;
  const { state } = await views.read(runsModel, minPosition);
  const root = query.runId !== undefined ? rootOfRun(state, query.runId) : rootOfConversation(state, query.conversationId ?? '');
  return servedBy(projectRoots)(root);
}
