import { randomUUID } from 'node:crypto';
import { ConversationForkReply } from '@stagecraft/contracts';
import { ShellConfig } from '@stagecraft/service-shell';
import { ChatResult, RunEnd, connectSystem, followRun } from './session';

export interface ForkFlags {
  at: number;
  json?: boolean;
  timeout: number;
}

/**
 * `stagecraft runs fork`: a new run that starts as a copy of a recorded run up to revision `at`, then
 * is decided again from there, followed live to its end like `chat`; embedded unless a NATS URL is given.
 */
export async function fork(runId: string, flags: ForkFlags, config: ShellConfig): Promise<ChatResult & ConversationForkReply & RunEnd> {
  const system = await connectSystem(config, Boolean(flags.json));
  try {
    const newRunId = randomUUID();
    if (!flags.json) process.stdout.write(`stagecraft: forking run ${runId} at revision ${flags.at} as run ${newRunId}\n`);
    return await followRun(system.bus, config.prefix, newRunId, flags, () =>
      system.requester.request('conversation.fork', { runId, atRevision: flags.at, newRunId }),
    );
  } finally {
    await system.close();
  }
}
