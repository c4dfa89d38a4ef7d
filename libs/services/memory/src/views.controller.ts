import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { HistoryGetReply, HistoryGetRequest, ReasoningOutcomeGetReply, ReasoningOutcomeGetRequest } from '@stagecraft/contracts';
import { renderSummary } from '@stagecraft/context';
import { historyModel, reasoningOf, reasoningOutcomeModel } from '@stagecraft/read-models';
import { Handles } from '@stagecraft/service-shell';
import { MEMORY_VIEWS } from './tokens';
import type { MemoryViews } from './views/memory-views';

/** What the next turn reads of earlier ones, answered from the read models; this controller never writes. */
@Controller()
export class ViewsController {
  constructor(@Inject(MEMORY_VIEWS) private readonly views: MemoryViews) {}

  @Handles('memory.reasoning-outcome.get')
  async reasoningOutcome(@Payload() request: ReasoningOutcomeGetRequest): Promise<ReasoningOutcomeGetReply> {
    const { position, state } = await this.views.read(reasoningOutcomeModel, request.minPosition);
    return { ...reasoningOf(state, request), position: String(position) };
  }

  @Handles('memory.history.get')
  async history(@Payload() { conversationId, minPosition }: HistoryGetRequest): Promise<HistoryGetReply> {
    const { position, state } = await this.views.read(historyModel, minPosition);
    const history = Object.hasOwn(state.conversations, conversationId) ? state.conversations[conversationId] : null;
    return {
      conversationId,
      summary: history?.summary ? renderSummary(history.summary) : null,
      messages: (history?.messages ?? []).map(({ role, content }) => ({ role, content })),
      position: String(position),
    };
  }
}
