import { EventOf, RunDigest, conversationEvents, runEvents, runOfStream, streams } from '@stagecraft/contracts';
import { compactionEvent, extractiveSummary, foldRun, planCompaction, reviewToCarry, runDigest } from '@stagecraft/run';
import { emptyHistory, evolveHistory, sourcedMessages } from '@stagecraft/read-models';
import { runIds } from '@stagecraft/run';
import { ConcurrencyError, EventReader, EventWriter, NewEvent, RecordedEvent, readEvents, stableEventId } from '@stagecraft/event-store';

/**
 * The turn a completed run leaves in its conversation: what the user asked, then the answer, which
 * carries the run's digest when it has one. Ids, data and metadata all come from the run's own events,
 * so writing it again gives the same events.
 */
export function turnOf(
  started: EventOf<'RunStarted'>,
  completed: RecordedEvent & EventOf<'RunCompleted'>,
  digest: RunDigest | null = null,
): NewEvent[] {
  const { runId, conversationId, userInput } = started.data;
  const metadata = {
    runId,
    conversationId,
    // Run events after `RunStarted` leave the run's correlation id to it (docs/decisions/0018).
    correlationId: started.metadata.correlationId ?? completed.metadata.correlationId,
    causationId: completed.id,
    occurredAt: completed.metadata.occurredAt,
  };
  const turn: EventOf<'MessageAppended'>[] = [
    {
      type: 'MessageAppended',
      data: {
        messageId: runIds.turnUser(runId),
        role: 'user',
        content: userInput,
        instructions: [],
        intermediate: false,
        kind: 'user_input',
      },
      metadata,
    },
    {
      type: 'MessageAppended',
      data: {
        messageId: runIds.turnAnswer(runId),
        role: 'assistant',
        content: completed.data.answer,
        instructions: [],
        intermediate: false,
        kind: 'assistant',
        ...(digest ? { digest } : {}),
      },
      metadata,
    },
  ];
  return turn.map((event, i) => ({ id: stableEventId(`${runId}/turn/${i === 0 ? 'user' : 'answer'}`), ...event }));
}

/**
 * Appends the turn of a completed run to its conversation unless the conversation already holds it.
 * Stores keep a retried append once only within their own window (KurrentDB's is a cache), so the
 * conversation itself is checked, and the append expects the revision that check saw: a writer that
 * got there first makes it look again. Turns written before the ids were stable are found by message id.
 */
export async function rememberTurn(
  store: EventReader & EventWriter,
  completed: RecordedEvent & EventOf<'RunCompleted'>,
): Promise<'stored' | 'present' | 'no_run'> {
  // The stream names the run; logs written before also say it in the metadata (docs/decisions/0018).
  const runId = completed.metadata.runId ?? runOfStream(completed.streamId);
  // The run as it completed: events after it (late answers) do not change the digest a retry writes.
  const run = runId ? await readEvents(store, streams.run(runId), runEvents, { maxCount: Number(completed.revision) + 1 }) : [];
  const [started] = run;
  if (started?.type !== 'RunStarted') return 'no_run';
  const turn = turnOf(started, completed, turnDigest(run));
  const stream = streams.conversation(started.data.conversationId);
  const userMessageId = runIds.turnUser(started.data.runId);
  for (;;) {
    // Read whole, not through the family: the expected revision must count every event in the stream.
    const held = await store.readStream(stream);
    if (
      held.some(
        (e) => e.id === turn[0].id || (e.type === 'MessageAppended' && (e.data as { messageId?: unknown }).messageId === userMessageId),
      )
    )
      return 'present';
    try {
      // `stored` also when the store recognised these ids as a retry of its own: still one turn.
      await store.appendToStream(stream, [...turn, ...compactionAfter(started, held, turn)], {
        expectedRevision: held.length > 0 ? held[held.length - 1].revision : 'no_stream',
      });
      return 'stored';
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
    }
  }
}

/** The digest of a run's own history, from its stream read up to its completion (docs/decisions/0053). */
export function turnDigest(run: Parameters<typeof foldRun>[0]): RunDigest | null {
  const state = foldRun(run);
  if (state.status === 'new') return null;
  // A run that ended short of DONE hands its review's findings on to the next attempt (docs/decisions/0056).
  const review = reviewToCarry(state, run);
  return runDigest({ history: state.history, outcomes: state.outcomes, ...(review ? { review } : {}) });
}

const conversationTypes = new Set<string>(conversationEvents.types);

/**
 * The conversation's own compaction, decided with the run's recorded settings once its turn is in:
 * when the turns after the latest summary have grown past them, the older ones are summarised
 * (extractively: deterministic, so writing the turn again gives the same event) in the same append.
 */
export function compactionAfter(started: EventOf<'RunStarted'>, held: readonly RecordedEvent[], turn: readonly NewEvent[]): NewEvent[] {
  const settings = started.data.compaction;
  if (!settings) return [];
  const { runId, conversationId } = started.data;
  const stream = streams.conversation(conversationId);
  const next = held.length > 0 ? Number(held[held.length - 1].revision) + 1 : 0;
  const events = [
    ...held.filter((e) => conversationTypes.has(e.type)),
    ...turn.map((e, i) => ({ ...e, revision: BigInt(next + i), position: 0n })),
  ];
  const history = events.reduce(evolveHistory, emptyHistory(conversationId));
  const plan = planCompaction(history.summary, sourcedMessages(history, stream), settings);
  if (!plan) return [];
  const summary = extractiveSummary({
    previous: history.summary,
    messages: plan.replaced,
    outcomes: [],
    settings,
  });
  const data = compactionEvent({ compactionId: `${runId}.turn-compaction`, plan, method: 'extractive', summary, outcomes: [] });
  return [{ id: stableEventId(`${runId}/turn/compaction`), type: 'HistoryCompacted', data, metadata: turn[0].metadata }];
}
