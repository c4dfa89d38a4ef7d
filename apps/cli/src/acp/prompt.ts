import { randomUUID } from 'node:crypto';
import type { AgentContext, ContentBlock, PromptResponse, SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';
import { ErrorCode, FeedEvent, ModelStreamDelta, StagecraftError, foldFeedRun, publishContracts, withPrefix } from '@stagecraft/contracts';
import { subscribeRunEvents } from '@stagecraft/messaging';
import { visibleText } from '../commands/live-text';
import type { AcpContext, AcpSession } from './context';
import { ReadNow, diffContent } from './diff-content';
import { askPermission } from './permissions';
import { promptMessage } from './prompt-text';
import { Turn, changesOf, newTurn, updatesOf } from './updates';

/** The stages whose text is the answer the person reads; the warmup's goes as thought, the checks' and the review's not at all. */
const ANSWER_STAGES = new Set(['act', 'tool_followup']);

/** Sends updates one after another, in the order they were made. */
function serially(): (work: () => Promise<void>) => void {
  let chain = Promise.resolve();
  return (work) => {
    chain = chain.then(work).catch((error: unknown) => {
      process.stderr.write(`stagecraft acp: ${(error as Error).message}\n`);
    });
  };
}

/** The content of a completed write: one diff per changed file. */
const writeContent = (projectRoot: string, event: FeedEvent, readNow: ReadNow): Promise<ToolCallContent[]> =>
  Promise.all(changesOf(event).map((change) => diffContent(projectRoot, change, readNow)));

/**
 * `session/prompt`: the blocks become a message of the session's conversation, sent as a run in the
 * session's mode; the run's public feed and its streamed text become `session/update`s until it ends.
 */
export async function runPrompt(
  context: AcpContext,
  session: AcpSession,
  blocks: readonly ContentBlock[],
  client: AgentContext,
  readNow: ReadNow,
): Promise<PromptResponse> {
  if (session.running) throw new StagecraftError('CONFLICT', `session ${session.id} is already answering a prompt`);
  const message = promptMessage(blocks);
  const runId = randomUUID();
  session.running = { runId };
  const { bus, requester, config } = context;
  const send = serially();
  const notify = (update: SessionUpdate) => client.notify('session/update', { sessionId: session.id, update });
  let turn: Turn = newTurn(session.cwd, context.approve);
  const events: FeedEvent[] = [];
  let ended: (response: PromptResponse) => void = () => undefined;
  let failed: (error: unknown) => void = () => undefined;
  const settled = new Promise<PromptResponse>((resolve, reject) => ((ended = resolve), (failed = reject)));

  const shown = new Map<string, string>();
  const stream = bus.subscribe(withPrefix(config.prefix, publishContracts['run.stream'].subject(runId)), (m) => {
    const delta = JSON.parse(m.body) as ModelStreamDelta;
    send(async () => {
      const raw = (shown.get(`raw:${delta.requestId}`) ?? '') + delta.text;
      shown.set(`raw:${delta.requestId}`, raw);
      const visible = visibleText(raw);
      const before = shown.get(delta.requestId) ?? '';
      if (visible.length <= before.length) return;
      shown.set(delta.requestId, visible);
      const text = visible.slice(before.length);
      const answer = ANSWER_STAGES.has(delta.stage);
      if (answer) turn = { ...turn, streamed: turn.streamed + text };
      await notify({ sessionUpdate: answer ? 'agent_message_chunk' : 'agent_thought_chunk', content: { type: 'text', text } });
    });
  });
  const feed = subscribeRunEvents(bus, config.prefix, runId, (event) => {
    events.push(event);
    send(async () => {
      const content = await writeContent(session.cwd, event, readNow);
      const next = updatesOf(turn, event, content);
      turn = next.turn;
      for (const update of next.updates) await notify(update);
      if (event.type === 'ApprovalRequested')
        void askPermission(client, requester, { sessionId: session.id, projectRoot: session.cwd, runId }, event.data).catch(
          (error: unknown) =>
            process.stderr.write(`stagecraft acp: the approval of run ${runId} was not answered: ${(error as Error).message}\n`),
        );
      // A cancelled run has settled once the calls it had in flight are recorded.
      const run = foldFeedRun(events);
      if (turn.stop === null || (run.status === 'cancelled' && run.openCalls.length > 0)) return;
      if (turn.failure) failed(new StagecraftError(turn.failure.code, `the run failed: ${turn.failure.reason}`));
      else ended({ stopReason: turn.stop });
    });
  });
  try {
    await bus.flush();
    await requester.request('conversation.send', {
      runId,
      conversationId: session.id,
      message,
      userMode: session.mode,
      reasoningEnabled: session.reasoning,
      projectRoot: session.cwd,
      ...(context.approve !== 'never' && { approve: context.approve }),
      ...(session.editor && { editor: session.editor.bridge }),
    });
    return await settled;
  } finally {
    stream.unsubscribe();
    feed.unsubscribe();
    session.running = null;
  }
}

/** `session/cancel`: the run of the prompt in progress is cancelled; the prompt answers `cancelled` once it has settled. */
export async function cancelPrompt(context: AcpContext, session: AcpSession): Promise<void> {
  const running = session.running;
  if (!running) return;
  await context.requester.request('run.cancel', { runId: running.runId, by: 'user', reason: 'cancelled in the editor' });
}
