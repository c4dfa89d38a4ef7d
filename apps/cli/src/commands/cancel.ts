import { RunCancelReply, RunCancelRequest, validationError } from '@stagecraft/contracts';
import { ShellConfig } from '@stagecraft/service-shell';
import { EXIT, ExitCode } from '../exit-codes';
import { connectSystem } from './session';

export interface CancelFlags {
  reason?: string;
  json?: boolean;
}

/** The `run.cancel` request the arguments ask for, validated as the conversation service validates it. */
export function cancelRequest(runId: string, flags: CancelFlags): RunCancelRequest {
  const parsed = RunCancelRequest.safeParse({ runId, by: 'cli', reason: flags.reason });
  if (!parsed.success) throw validationError(parsed.error, 'runs cancel arguments');
  return parsed.data;
}

/**
 * `stagecraft runs cancel <runId>`: `run.cancel`, to the distributed system over NATS, or embedded to
 * the services started here on the store (which drive nothing: the run's own process, if any, finds the
 * cancellation in the log within a second and stops). Exit 0 when this cancelled the run, 1 when it had
 * ended already (nothing changed).
 */
export async function cancelRunCommand(runId: string, flags: CancelFlags, config: ShellConfig): Promise<ExitCode> {
  const request = cancelRequest(runId, flags);
  const system = await connectSystem(config, true, { resume: false });
  let reply: RunCancelReply;
  try {
    reply = await system.requester.request('run.cancel', request);
  } finally {
    await system.close();
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(reply)}\n`);
  else if (reply.outcome === 'cancelled') process.stdout.write(`run ${runId} cancelled\n`);
  else process.stdout.write(`run ${runId} had already ended (${reply.status}); nothing changed\n`);
  return reply.outcome === 'cancelled' ? EXIT.done : EXIT.failed;
}
