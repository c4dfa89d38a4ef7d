import type { apiV1 } from '@stagecraft/contracts';
import { entryOf, rootOfConversation } from '@stagecraft/read-models';
import type { ApiPorts } from './ports';
import { notFound } from './reply';
import { runFeed } from './runs/feed';
import type { ConsoleView } from './view/console-view';

type Row = apiV1.ConversationsReplyRow;

/** Conversations, the one with the latest run first: one walk over the runs view, newest run first. */
export function listConversations(view: ConsoleView, limit: number): { conversations: Row[] } {
  const rows = new Map<string, Row>();
  const { started, runs } = view.runs;
  for (let i = started.length - 1; i >= 0; i -= 1) {
    const run = entryOf(runs, started[i]);
    if (!run) continue;
    const row = rows.get(run.conversationId);
    const title = entryOf(view.extras, run.runId)?.title;
    if (row) {
      row.runs += 1;
      row.startedAt = run.startedAt;
      if (title) row.title = title;
      continue;
    }
    if (rows.size >= limit) continue;
    const root = rootOfConversation(view.runs, run.conversationId);
    rows.set(run.conversationId, {
      conversationId: run.conversationId,
      ...(root ? { projectRoot: root } : {}),
      ...(title ? { title } : {}),
      runs: 1,
      lastRunId: run.runId,
      lastStatus: run.status,
      startedAt: run.startedAt,
      updatedAt: run.updatedAt,
    });
  }
  return { conversations: [...rows.values()] };
}

/** A conversation turn by turn: each run's message and answer, read from its stream. */
export async function conversationDetail(
  view: ConsoleView,
  ports: Pick<ApiPorts, 'log'>,
  conversationId: string,
): Promise<apiV1.ConversationDetailV1> {
  const runIds = view.runs.started.filter((id) => entryOf(view.runs.runs, id)?.conversationId === conversationId);
  if (runIds.length === 0) throw notFound(`conversation ${conversationId}`);
  const turns = await Promise.all(
    runIds.map(async (runId) => {
      const run = entryOf(view.runs.runs, runId)!;
      const events = await runFeed(ports.log, runId);
      const started = events.find((e) => e.type === 'RunStarted');
      const completed = events.filter((e) => e.type === 'RunCompleted').at(-1);
      return {
        userMessage: started?.type === 'RunStarted' ? started.data.userInput : '',
        ...(completed?.type === 'RunCompleted' ? { answer: completed.data.answer } : {}),
        runIds: [runId],
        status: run.status,
        startedAt: run.startedAt,
      };
    }),
  );
  const root = rootOfConversation(view.runs, conversationId);
  return { conversationId, ...(root ? { projectRoot: root } : {}), turns };
}
