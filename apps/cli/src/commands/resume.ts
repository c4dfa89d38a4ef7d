import { RunSummary, RunsListRequest, StagecraftError } from '@stagecraft/contracts';
import { openEventStore } from '@stagecraft/event-store';
import { memoryConfigFromEnv } from '@stagecraft/memory-service';
import { MessageBus, Requester } from '@stagecraft/messaging';
import { ShellConfig } from '@stagecraft/service-shell';
import { ChatResult, RunEnd, approvalHandling, cancelOnInterrupt, connectSystem, followRun } from './session';
import { listRunsInStore } from './runs';

export interface ResumeFlags {
  json?: boolean;
  timeout: number;
}

interface System {
  bus: MessageBus;
  requester: Requester;
}

const write = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `stagecraft runs resume <runId>`: drives an unfinished run on to its end and follows it like `chat`.
 * Embedded, this process drives it (and only it: other unfinished runs are left as they are); over
 * NATS, the conversation service that answers drives it, unless another replica drives it already.
 */
export async function resumeRun(runId: string, flags: ResumeFlags, config: ShellConfig): Promise<ChatResult & RunEnd> {
  const system = await connectSystem(config, Boolean(flags.json));
  try {
    return await followResumed(system, config, runId, flags);
  } finally {
    await system.close();
  }
}

/** Resumes one run and follows it to its end; a run that waits for a person or has ended is a `CONFLICT`, with what to do instead. */
export async function followResumed(system: System, config: ShellConfig, runId: string, flags: ResumeFlags): Promise<ChatResult & RunEnd> {
  const { run } = await system.requester.request('conversation.run.get', { runId });
  if (run.pendingApproval)
    throw new StagecraftError(
      'CONFLICT',
      `run ${runId} waits for your approval of ${run.pendingApproval.summary}: answer it with \`stagecraft approve ${runId}\``,
    );
  if (run.status !== 'running' && run.status !== 'cancelled')
    throw new StagecraftError('CONFLICT', `run ${runId} has ended (${run.status}): there is nothing to resume`);
  if (!flags.json)
    write(
      `stagecraft: ${run.status === 'cancelled' ? 'continuing cancelled' : 'resuming'} run ${runId} (stage ${run.stage ?? 'none yet'}, ${run.eventCount} events recorded)`,
    );
  // Ctrl-C cancels the resumed run as it cancels a run `chat` started.
  const interrupt = cancelOnInterrupt(system.requester, () => runId);
  const result = await followRun(
    system.bus,
    config.prefix,
    runId,
    { json: flags.json, timeout: flags.timeout, approvals: approvalHandling(config, system.requester) },
    async () => {
      const reply = await system.requester.request('conversation.run.resume', { runId });
      return { conversationId: reply.run.conversationId };
    },
  ).finally(() => interrupt.dispose());
  return interrupt.pressed ? { ...result, interrupted: true } : result;
}

/**
 * The runs a query asks for, newest first: embedded, read from the store itself (before the system
 * starts, so nothing is driven yet); over NATS, asked of the memory service.
 */
export async function findRuns(
  config: ShellConfig,
  requester: Requester | null,
  query: Pick<RunsListRequest, 'conversationId' | 'projectRoot' | 'status'> & { limit: number },
): Promise<RunSummary[]> {
  if (config.natsUrl) {
    if (!requester) throw new StagecraftError('INTERNAL', 'runs of a distributed system are asked for over NATS');
    return (await requester.request('runs.list', query)).runs;
  }
  const store = openEventStore(config.store);
  try {
    return (await listRunsInStore(store, query, memoryConfigFromEnv(process.env), new Date())).runs;
  } finally {
    await store.close();
  }
}

/** One line per unfinished run of a conversation, with the commands that drive it on. */
export function unfinishedNotice(conversationId: string, runs: readonly RunSummary[]): string[] {
  return runs.map((run) =>
    run.pendingApproval
      ? `stagecraft: run ${run.runId} of conversation ${conversationId} waits for approval of ${run.pendingApproval.summary} (stagecraft approve ${run.runId})`
      : `stagecraft: run ${run.runId} of conversation ${conversationId} is unfinished (stage ${run.stage ?? 'none yet'}): ` +
        `stagecraft runs resume ${run.runId}, or chat --continue --conversation ${conversationId}`,
  );
}
