import type { MemoryReflectReply, MemoryReflectRequest } from '@stagecraft/contracts';
import type { RequestContext } from '@stagecraft/messaging';
import type { MemoryDeps } from '../dependencies';
import { linkOf } from '../memory-scope/memory-book';
import { scopeOfProject } from '../project-scope';

/** `memory.reflect`: links (and merges) the memories bearing on the query, as `MemoryLinked` / `MemoryRetracted` events, and lists them. */
export async function reflect(
  { projectRoot, ...request }: MemoryReflectRequest,
  { book, projectRoots }: MemoryDeps,
  context: RequestContext,
): Promise<MemoryReflectReply> {
  return book.reflect({ ...request, scope: scopeOfProject(projectRoot, projectRoots) }, linkOf(context));
}
