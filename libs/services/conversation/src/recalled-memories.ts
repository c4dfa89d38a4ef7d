import { PromptAssembleRequest, RecalledMemory, toErrorReply } from '@stagecraft/contracts';
import type { DriverPorts } from './driver-ports';

/** How many memories the first request of a run shows. */
export const RECALL_LIMIT = 5;

/**
 * The assemble request of a run's first model request with the memories recalled for the user's message
 * (docs/decisions/0021, 0058): in every mode, with reasoning on or off, the first request of a top-level
 * run (warmup where there is one, else the first act) shows them. The contributor is stage-bound, so they
 * sit in that request's trailing stage message (0052) and the shared prefix of the run never changes;
 * the assembled prompt, stored with the request, records what was shown. Later requests, and delegated
 * runs, are returned as they are; a recall that fails only leaves the section out.
 */
export async function withRecalledMemories(
  ports: Pick<DriverPorts, 'requester' | 'logger'>,
  assemble: PromptAssembleRequest,
  run: { runId: string; userInput: string; projectRoot: string; modelRequests: number },
): Promise<PromptAssembleRequest> {
  if (run.modelRequests > 0 || assemble.policy.stage === 'qa_review' || assemble.policy.delegation.depth > 0) return assemble;
  try {
    const { memories } = await ports.requester.request(
      'memory.recall',
      { projectRoot: run.projectRoot, query: run.userInput, limit: RECALL_LIMIT },
      { correlationId: run.runId },
    );
    if (memories.length === 0) return assemble;
    const recalled: RecalledMemory[] = memories.map((m) => ({
      memoryId: m.memoryId,
      tier: m.tier,
      content: m.content,
      ...(m.source?.runId ? { runId: m.source.runId } : {}),
    }));
    return { ...assemble, recalled };
  } catch (error) {
    ports.logger.warn(
      { runId: run.runId, err: toErrorReply(error).message },
      'memory recall for the first request failed; asking without it',
    );
    return assemble;
  }
}
