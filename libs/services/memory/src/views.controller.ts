import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { HistoryGetReply, HistoryGetRequest, ReasoningOutcomeGetReply, ReasoningOutcomeGetRequest } from '@stagecraft/contracts';
import { renderSummary } from '@stagecraft/run';
import { historyModel, reasoningOf, reasoningOutcomeModel, rootOfConversation, rootOfRun, runsModel } from '@stagecraft/read-models';
import { Handles, SHELL_CONFIG } from '@stagecraft/service-shell';
import type { ShellPorts } from '@stagecraft/service-shell';
import { servedBy } from './project-scope';
import { MEMORY_VIEWS } from './tokens';
import type { MemoryViews } from './views/memory-views';

/**
 * What the next turn reads of earlier ones, answered from the read models; this controller never writes.
 * A run or conversation of a project this deployment does not serve is answered as an unknown one.
 */
@Controller()
export class ViewsController {
  private readonly roots: readonly string[] | undefined;
  private readonly servedRoot: (projectRoot: string | null) => boolean;

  constructor(
    @Inject(MEMORY_VIEWS) private readonly views: MemoryViews,
    @Inject(SHELL_CONFIG) shell: Pick<ShellPorts, 'projectRoots'>,
  ) {
    this.roots = shell.projectRoots;
    this.servedRoot = servedBy(shell.projectRoots);
  }

  /** Whether the run or conversation belongs to a served project, by the runs view at the same position. */
  private async served(query: { runId?: string; conversationId?: string }, minPosition: string | undefined): Promise<boolean> {
    if (this.roots === undefined) return true;
    const { state } = await this.views.read(runsModel, minPosition);
    const root = query.runId !== undefined ? rootOfRun(state, query.runId) : rootOfConversation(state, query.conversationId ?? '');
    return this.servedRoot(root);
  }

  @Handles('memory.reasoning-outcome.get')
  async reasoningOutcome(@Payload() request: ReasoningOutcomeGetRequest): Promise<ReasoningOutcomeGetReply> {
    const [{ position, state }, served] = await Promise.all([
      this.views.read(reasoningOutcomeModel, request.minPosition),
      this.served(request, request.minPosition),
    ]);
    const answer = served ? reasoningOf(state, request) : reasoningOf(state, {});
    return { ...answer, position: String(position) };
  }

  @Handles('memory.history.get')
  async history(@Payload() { conversationId, minPosition }: HistoryGetRequest): Promise<HistoryGetReply> {
    const [{ position, state }, served] = await Promise.all([
      this.views.read(historyModel, minPosition),
      this.served({ conversationId }, minPosition),
    ]);
    const history = served && Object.hasOwn(state.conversations, conversationId) ? state.conversations[conversationId] : null;
    return {
      conversationId,
      summary: history?.summary ? renderSummary(history.summary) : null,
      messages: (history?.messages ?? []).map(({ role, content }) => ({ role, content })),
      position: String(position),
    };
  }
}
