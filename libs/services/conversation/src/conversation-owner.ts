import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConversationEvent, StagecraftError, runEvents, streams } from '@stagecraft/contracts';
import { EventReader, Recorded, readEvents } from '@stagecraft/event-store';

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
export async function conversationRoot(reader: EventReader, turns: readonly Recorded<ConversationEvent>[]): Promise<string | null> {
  const runId = turns.find((e) => e.metadata.runId !== undefined)?.metadata.runId;
  if (runId === undefined) return null;
  const [started] = await readEvents(reader, streams.run(runId), runEvents, { maxCount: 1 });
  return started?.type === 'RunStarted' ? started.data.projectRoot : null;
}

/**
 * A conversation stays in the project it started in: a turn sent from another root would read that
 * project's history into a run on this one, and leave its own turn in that project's conversation.
 */
export function checkSameProject(conversationId: string, owner: string | null, projectRoot: string): void {
  if (owner === null || realOrResolved(owner) === realOrResolved(projectRoot)) return;
  throw new StagecraftError('CONFLICT', `conversation ${conversationId} belongs to another project root`, [
    { path: ['projectRoot'], message: 'a conversation continues only in the project root it started in' },
  ]);
}
