import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConversationEvent, StagecraftError, runEvents, streams } from '@stagecraft/contracts';
import { EventReader, EventStore, Recorded, catchUpProjection, readEvents } from '@stagecraft/event-store';
import { activeRunsProjection } from '../active-runs';

const realOrResolved = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
};

/**
 * The project a conversation belongs to: the root of the run whose turn it holds first (every turn
 * names its run). Null while it holds none, or only turns written before they named their run.
 */
async function conversationRoot(reader: EventReader, turns: readonly Recorded<ConversationEvent>[]): Promise<string | null> {
  const runId = turns.find((e) => e.metadata.runId !== undefined)?.metadata.runId;
  if (runId === undefined) return null;
  const [started] = await readEvents(reader, streams.run(runId), runEvents, { maxCount: 1 });
  return started?.type === 'RunStarted' ? started.data.projectRoot : null;
}

/**
 * The root of a run of this conversation that has started and not ended: until it ends, the
 * conversation holds no turn of it, yet it already belongs to that run's project.
 */
async function inFlightRoot(store: EventStore, conversationId: string): Promise<string | null> {
  const { active } = await catchUpProjection(store, store.checkpoints, activeRunsProjection);
  for (const runId of active) {
    const [started] = await readEvents(store, streams.run(runId), runEvents, { maxCount: 1 });
    if (started?.type === 'RunStarted' && started.data.conversationId === conversationId) return started.data.projectRoot;
  }
  return null;
}

/**
 * A conversation stays in the project it started in: a turn sent from another root would read that
 * project's history into a run on this one, and leave its own turn in that project's conversation.
 */
function checkSameProject(conversationId: string, owner: string | null, projectRoot: string): void {
  if (owner === null || realOrResolved(owner) === realOrResolved(projectRoot)) return;
  throw new StagecraftError('CONFLICT', `conversation ${conversationId} belongs to another project root`, [
    { path: ['projectRoot'], message: 'a conversation continues only in the project root it started in' },
  ]);
}

/** Refuses a message sent into a conversation from another project root than the one it belongs to (`earlier`: its turns). */
export async function checkConversationProject(
  store: EventStore,
  earlier: readonly Recorded<ConversationEvent>[],
  { conversationId, projectRoot }: { conversationId?: string; projectRoot: string },
  id: string,
): Promise<void> {
  // A new conversation has no run in flight to belong to.
  const owner = (await conversationRoot(store, earlier)) ?? (conversationId === undefined ? null : await inFlightRoot(store, id));
  checkSameProject(id, owner, projectRoot);
}
