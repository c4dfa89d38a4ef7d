import type { MemoryRecallReply, MemoryRecallRequest } from '@stagecraft/contracts';
import type { MemoryDeps } from '../dependencies';
import { scopeOfProject } from '../project-scope';

/** `memory.recall`: the live memories of the request's project that bear on the query, best first, from the memories view. */
export async function recall(
  { projectRoot, ...request }: MemoryRecallRequest,
  { book, projectRoots }: MemoryDeps,
): Promise<MemoryRecallReply> {
  return book.recall({ ...request, scope: scopeOfProject(projectRoot, projectRoots) });
}
