import { PromptAssembleRequest, RecalledMemory, toErrorReply } from '@stagecraft/contracts';
import type { DriverPorts } from './driver-ports';

/** How many memories the warmup prompt shows. */
export const WARMUP_RECALL_LIMIT = 5;

/**
 * The warmup's assemble request with the memories recalled for the user's message (docs/decisions/0021):
 * the shell asks `memory.recall` in the project's scope and the `recalled-memories` contributor renders
 * them, so the decider stays pure and the assembled prompt, stored with the request, records what was
 * shown. Any other stage's request is returned as it is; a recall that fails only leaves the section out.
 */
export async function withRecalledMemories(
  ports: Pick<DriverPorts, 'requester' | 'logger'>,
  assemble: PromptAssembleRequest,
  run: { runId: string; userInput: string; projectRoot: string },
): Promise<PromptAssembleRequest> {
  if (assemble.policy.stage !== 'warmup' || assemble.policy.userMode !== 'agent' || assemble.policy.delegation.depth > 0) return assemble;
  try {
    const { memories } = await ports.requester.request(
      'memory.recall',
      { projectRoot: run.projectRoot, query: run.userInput, limit: WARMUP_RECALL_LIMIT },
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
    ports.logger.warn({ runId: run.runId, err: toErrorReply(error).message }, 'memory recall for warmup failed; warming up without it');
    return assemble;
  }
}
