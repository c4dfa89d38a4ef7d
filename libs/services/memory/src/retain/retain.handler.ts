import type { MemoryRetainReply, MemoryRetainRequest } from '@stagecraft/contracts';
import type { RequestContext } from '@stagecraft/messaging';
import type { MemoryDeps } from '../dependencies';
import { linkOf } from '../memory-scope/memory-book';
import { scopeOfProject } from '../project-scope';

/** `memory.retain`: one memory in the scope of the request's project (which the deployment must serve), once per memory id. */
export async function retain(
  { projectRoot, ...request }: MemoryRetainRequest,
  { book, projectRoots }: MemoryDeps,
  context: RequestContext,
): Promise<MemoryRetainReply> {
  return book.retain({ ...request, scope: scopeOfProject(projectRoot, projectRoots) }, linkOf(context));
}
