import type { AgentContext } from '@agentclientprotocol/sdk';
import { FeedEvent, StagecraftError, UserMode, runEvents, streams, toFeedEvent } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import { findRuns } from '../commands/resume';
import type { AcpContext } from './context';
import { ReadNow, diffContent } from './diff-content';

/** The files may have changed since a stored turn: its writes are shown as their recorded diffs. */
const asRecorded: ReadNow = () => Promise.resolve(null);
import { changesOf, newTurn, updatesOf } from './updates';

/** What a loaded session goes on with: the mode and reasoning of its conversation's last turn. */
export interface LoadedConversation {
  mode: UserMode;
  reasoning: boolean;
}

/** A run's public events, read from the log. */
async function feedOf(context: AcpContext, runId: string): Promise<FeedEvent[]> {
  const stored = await readEvents(context.log, streams.run(runId), runEvents);
  return stored.flatMap((event) => toFeedEvent({ ...event, streamId: streams.run(runId) }) ?? []);
}

/**
 * `session/load`: the conversation's turns, oldest first, sent again as `session/update`s (the user's
 * message, the tool calls and their diffs, the answer), read from the log. A conversation in another
 * project than `cwd` is refused: its turns would be continued in the wrong tree.
 */
export async function replayConversation(
  context: AcpContext,
  conversationId: string,
  cwd: string,
  client: AgentContext,
): Promise<LoadedConversation> {
  const runs = (await findRuns(context.config, context.requester, { conversationId, limit: 500 })).reverse();
  if (runs.length === 0)
    throw new StagecraftError('NOT_FOUND', `no conversation ${conversationId}`, [{ path: ['sessionId'], message: 'unknown session' }]);
  let loaded: LoadedConversation = { mode: 'agent', reasoning: false };
  for (const run of runs) {
    const events = await feedOf(context, run.runId);
    const started = events.find((e) => e.type === 'RunStarted');
    if (started?.type === 'RunStarted') {
      if (started.data.projectRoot !== cwd)
        throw new StagecraftError('CONFLICT', `session ${conversationId} belongs to another project root`, [
          { path: ['cwd'], message: 'a session is loaded in the project root it started in' },
        ]);
      loaded = { mode: started.data.userMode, reasoning: started.data.reasoningEnabled };
    }
    let turn = newTurn(cwd, started?.type === 'RunStarted' ? (started.data.approve ?? 'never') : 'never', true);
    for (const event of events) {
      const content = await Promise.all(changesOf(event).map((change) => diffContent(cwd, change, asRecorded)));
      const next = updatesOf(turn, event, content);
      turn = next.turn;
      for (const update of next.updates) await client.notify('session/update', { sessionId: conversationId, update });
    }
  }
  return loaded;
}
