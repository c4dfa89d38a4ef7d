import type { ReasoningOutcomeGetReply, ReasoningOutcomeGetRequest } from '@stagecraft/contracts';
import { reasoningOf, reasoningOutcomeModel } from '@stagecraft/read-models';
import type { MemoryDeps } from '../dependencies';
import { servesRunOrConversation } from '../project-scope';

/** `memory.reasoning-outcome.get`: what the next turn reads of earlier reasoning; one of a project not served is answered as unknown. */
export async function reasoningOutcome(request: ReasoningOutcomeGetRequest, deps: MemoryDeps): Promise<ReasoningOutcomeGetReply> {
  const [{ position, state }, served] = await Promise.all([
    deps.views.read(reasoningOutcomeModel, request.minPosition),
    servesRunOrConversation(deps, request, request.minPosition),
  ]);
  const answer = served ? reasoningOf(state, request) : reasoningOf(state, {});
  return { ...answer, position: String(position) };
}
