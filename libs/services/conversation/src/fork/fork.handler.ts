import {
  ConversationForkReply,
  ConversationForkRequest,
  StagecraftError,
  runEvents,
  streams,
  withinProjectRoots,
} from '@stagecraft/contracts';
import { ConcurrencyError, readEvents } from '@stagecraft/event-store';
import type { RequestContext } from '@stagecraft/messaging';
import type { Conversation } from '../dependencies';
import type { DriverPorts } from '../driver-ports';
import { forkCopies, forkHead } from './fork-head';

/** `conversation.fork`: a recorded run's head starts another run, answered at once; the new run goes on on `run.<runId>.events`. */
export async function fork(
  request: ConversationForkRequest,
  { ports, registry }: Conversation,
  context: RequestContext,
): Promise<ConversationForkReply> {
  const reply = await forkRun(ports, request, context.correlationId);
  await registry.resume(reply.runId);
  return reply;
}

/**
 * A new run whose stream starts with a copy of a recorded run's events up to a commit end. Nothing is
 * appended unless all of it is; the caller drives the new run from there.
 */
async function forkRun(ports: DriverPorts, request: ConversationForkRequest, correlationId: string): Promise<ConversationForkReply> {
  const { runId, atRevision } = request;
  const newRunId = request.newRunId ?? ports.newId();
  const [events, existing] = await Promise.all([
    readEvents(ports.store, streams.run(runId), runEvents),
    ports.store.readStream(streams.run(newRunId), { maxCount: 1 }),
  ]);
  // A run of a project this deployment does not serve is answered as one that does not exist.
  const [started] = events;
  if (started?.type === 'RunStarted' && !withinProjectRoots(started.data.projectRoot, ports.projectRoots))
    throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
  const { head, conversationId } = forkHead(events, runId, atRevision);
  const conflict = () =>
    new StagecraftError('CONFLICT', `run ${newRunId} already exists`, [{ path: ['newRunId'], message: 'already used by a run' }]);
  if (existing.length > 0) throw conflict();
  const forkedFrom = { runId, revision: atRevision };
  const copies = forkCopies(head, forkedFrom, newRunId, correlationId, ports.newId);
  try {
    await ports.store.appendToStream(streams.run(newRunId), copies, { expectedRevision: 'no_stream' });
  } catch (error) {
    if (error instanceof ConcurrencyError) throw conflict();
    throw error;
  }
  ports.afterCommit?.(copies.map((e) => e.type));
  return { runId: newRunId, conversationId, forkedFrom };
}
