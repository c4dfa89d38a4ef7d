import type { IndexMapReply, IndexMapRequest } from '@stagecraft/contracts';
import type { RequestContext } from '@stagecraft/messaging';
import { projectMapFor } from '../codebase-index/codebase-index';
import type { ToolCallPorts } from '../dependencies';

/** `index.map`: the project map for warmup; the root is checked like a tool call's, and indexed on first use. */
export const indexMap = (request: IndexMapRequest, ports: ToolCallPorts, context: RequestContext): Promise<IndexMapReply> =>
  projectMapFor(ports, request, context);
