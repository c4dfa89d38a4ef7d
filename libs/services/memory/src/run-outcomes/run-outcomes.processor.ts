import { createHash } from 'node:crypto';
import { EventOf, memoryScopeOf, runEvents, runOfStream, streams, toErrorReply } from '@stagecraft/contracts';
import { readEvents, startProcessor } from '@stagecraft/event-store';
import type { EventReader, Processor, RecordedEvent } from '@stagecraft/event-store';
import type { Started } from '@stagecraft/service-shell';
import type { MemoryDeps } from '../dependencies';
import type { MemoryBook } from '../memory-scope/memory-book';
import { projectFacts } from './project-facts';

export const RUN_OUTCOMES = 'memory-run-outcomes';
const RUN_STREAM = streams.run('');
const REQUEST_CHARS = 300;
const ANSWER_LINES = 3;
const ANSWER_CHARS = 500;

const clip = (text: string, chars: number) => (text.length <= chars ? text : `${text.slice(0, chars - 1)}…`);

/** The memory a run that ended DONE leaves: what was asked, and the first lines of the answer. */
export function runOutcomeContent(userInput: string, answer: string): string {
  const request = clip(userInput.replace(/\s+/g, ' ').trim(), REQUEST_CHARS);
  const lines = answer
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .slice(0, ANSWER_LINES);
  return `Request: ${request}\nAnswer: ${clip(lines.join(' / ') || '(empty)', ANSWER_CHARS)}`;
}

/** One id per run, the same on every replay: a repeated `RunCompleted` retains nothing new. */
export const runOutcomeMemoryId = (runId: string): string => `run-outcome-${createHash('sha256').update(runId).digest('hex').slice(0, 24)}`;

/**
 * The write policy for run outcomes (seed 002 §8.2): a run that completes with `DONE` leaves one concise
 * `run_outcome` memory in its project's scope, with its run and context id as source, and a `project`
 * memory for each build or test command it ran successfully that the scope does not hold yet
 * (docs/decisions/0058). `NEEDS_WORK` and failed runs leave none. The book bounds the outcome tier,
 * retracting the oldest.
 */
export function runOutcomes(reader: EventReader, book: MemoryBook): Processor {
  return {
    name: RUN_OUTCOMES,
    handles: (event) => event.type === 'RunCompleted' && event.streamId.startsWith(RUN_STREAM),
    async handle(recorded) {
      const completed = recorded as RecordedEvent & EventOf<'RunCompleted'>;
      if (completed.data.deliveryState !== 'DONE') return;
      const runId = completed.metadata.runId ?? runOfStream(completed.streamId);
      const events = runId ? await readEvents(reader, streams.run(runId), runEvents) : [];
      const started = events[0];
      // A cancelled run never completes; should a log say both, the cancellation wins and nothing is retained,
      // unless the run was taken up again after it.
      const lastSay = events.findLast((e) => e.type === 'RunCancelled' || e.type === 'RunContinued');
      if (started?.type !== 'RunStarted' || lastSay?.type === 'RunCancelled') return;
      const { projectRoot, userInput, conversationId } = started.data;
      // The context of the last stage the run entered: where its answer was made.
      const lastStage = events.findLast((e) => e.type === 'StageEntered');
      const contextId = completed.metadata.contextId ?? (lastStage?.type === 'StageEntered' ? lastStage.data.contextId : undefined);
      const scope = memoryScopeOf(projectRoot);
      const link = {
        correlationId: started.metadata.correlationId ?? completed.metadata.correlationId,
        causationId: completed.id,
        conversationId,
      };
      const source = { runId: started.data.runId, ...(contextId ? { contextId } : {}) };
      await book.retain(
        {
          scope,
          tier: 'run_outcome',
          content: runOutcomeContent(userInput, completed.data.answer),
          tags: ['run_outcome'],
          memoryId: runOutcomeMemoryId(started.data.runId),
          source,
        },
        link,
      );
      // The build and test commands that passed in the run: the project tier, once per command line.
      for (const fact of projectFacts(events)) {
        await book.retain({ scope, tier: 'project', content: fact.content, tags: fact.tags, memoryId: fact.memoryId, source }, link);
      }
    },
  };
}

/** Follows the log from its checkpoint with the service, after the views it reads have started. */
export async function followRunOutcomes({ store, book, logger }: Pick<MemoryDeps, 'store' | 'book' | 'logger'>): Promise<Started> {
  const processor = await startProcessor(store, store.checkpoints, runOutcomes(store, book), {
    onError: ({ during, error, attempt, event }) =>
      logger.error(
        { processor: RUN_OUTCOMES, during, attempt, eventId: event?.id, err: toErrorReply(error).message },
        'run-outcome memory failed; trying again',
      ),
  });
  return { stop: () => processor.stop() };
}
