import type { HistoryGetReply, HistoryGetRequest } from '@stagecraft/contracts';
import { historyModel } from '@stagecraft/read-models';
import { renderSummary } from '@stagecraft/run';
import type { MemoryDeps } from '../dependencies';
import { servesRunOrConversation } from '../project-scope';

/** `memory.history.get`: a conversation's summary and messages from the history view; one of a project not served is unknown. */
export async function history({ conversationId, minPosition }: HistoryGetRequest, deps: MemoryDeps): Promise<HistoryGetReply> {
  const [{ position, state }, served] = await Promise.all([
    deps.views.read(historyModel, minPosition),
    servesRunOrConversation(deps, { conversationId }, minPosition),
  ]);
  const history = served && Object.hasOwn(state.conversations, conversationId) ? state.conversations[conversationId] : null;
  return {
    conversationId,
    summary: history?.summary ? renderSummary(history.summary) : null,
    messages: (history?.messages ?? []).map(({ role, content }) => ({ role, content })),
    position: String(position),
  };
}
