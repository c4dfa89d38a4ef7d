import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ConversationId,
  ConversationSendRequest,
  NonBlank,
  PendingApproval,
  QAReport,
  RequestOf,
  UserMode,
  foldFeedRun,
} from '@stagecraft/contracts';
import { RunFeedEvent, subscribeRunEvents } from '@stagecraft/messaging';
import { z } from 'zod';
import { describeEvent } from '../commands/describe-event';
import type { McpContext } from './context';
import { projectRootOf } from './roots';

export const ChatArgs = z.object({
  message: ConversationSendRequest.shape.message,
  mode: UserMode.default('agent').describe('chat answers; agent may change the project'),
  reasoning: z.boolean().default(false).describe('require reasoning on every step'),
  root: NonBlank.optional().describe("the project the run works in; the server's --root when left out"),
  conversationId: ConversationId.optional().describe('continue this conversation'),
  approve: ConversationSendRequest.shape.approve.describe('which tool calls wait for a person (answer with the approve tool)'),
  limits: ConversationSendRequest.shape.limits.describe(
    "bounds for this run: maxToolIterations (tool rounds between delivery checks, 1-200) and maxDeliveryChecks (1-20); left out: the server's",
  ),
});
export type ChatArgs = z.output<typeof ChatArgs>;

export interface ChatToolResult {
  runId: string;
  conversationId: string;
  /** `waiting`: a tool call waits for `approve`; `running`: still going when the tool stopped following it. */
  status: 'completed' | 'failed' | 'cancelled' | 'waiting' | 'running';
  deliveryState: string | null;
  answer: string | null;
  qaReport: QAReport | null;
  pendingApproval: PendingApproval | null;
  failure: { code: string; reason: string } | null;
}

/**
 * Starts a run and follows its public feed until it ends, waits for an approval or the time runs out;
 * the result is the feed folded as every client folds it.
 */
export async function chatTool(context: McpContext, args: ChatArgs, progress?: (message: string) => void): Promise<ChatToolResult> {
  const projectRoot = await projectRootOf(context, args.root);
  const runId = randomUUID();
  const send = {
    runId,
    conversationId: args.conversationId,
    message: args.message,
    userMode: args.mode,
    reasoningEnabled: args.reasoning,
    projectRoot,
    approve: args.approve,
    limits: args.limits,
  } satisfies RequestOf<'conversation.send'>;
  const events: RunFeedEvent[] = [];
  let settle: (outcome: 'ended' | 'waiting') => void = () => undefined;
  const settled = new Promise<'ended' | 'waiting'>((done) => (settle = done));
  const feed = subscribeRunEvents(context.bus, context.prefix, runId, (event) => {
    events.push(event);
    const line = progress && describeEvent(event)?.trim();
    if (line) progress?.(line);
    if (event.type === 'RunCompleted' || event.type === 'RunFailed' || event.type === 'RunCancelled') settle('ended');
    else if (event.type === 'ApprovalRequested') settle('waiting');
  });
  const timer = new AbortController();
  try {
    await context.bus.flush();
    const reply = await context.requester.request('conversation.send', send);
    const outcome = await Promise.race([settled, sleep(context.chatTimeoutMs, 'running' as const, { signal: timer.signal })]);
    const run = foldFeedRun(events);
    const view = outcome === 'waiting' ? (await context.requester.request('conversation.run.get', { runId })).run : null;
    return {
      runId,
      conversationId: reply.conversationId,
      status:
        outcome === 'running' || outcome === 'waiting'
          ? outcome
          : run.status === 'completed' || run.status === 'cancelled'
            ? run.status
            : 'failed',
      deliveryState: run.status === 'completed' ? run.deliveryState : null,
      answer: run.status === 'completed' ? run.answer : null,
      qaReport: run.status === 'new' ? null : run.qaReport,
      pendingApproval: view?.pendingApproval ?? null,
      failure: run.status === 'failed' ? run.failure : null,
    };
  } finally {
    timer.abort();
    feed.unsubscribe();
  }
}
