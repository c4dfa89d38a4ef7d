import {
  ConversationSendReply,
  ConversationSendRequest,
  NO_DELEGATION,
  StagecraftError,
  conversationEvents,
  streams,
} from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import type { RequestContext } from '@stagecraft/messaging';
import type { RunLimits } from '@stagecraft/run';
import { checkProjectRoot } from '@stagecraft/tools';
import { checkConversationProject } from './conversation-owner';
import type { Conversation } from '../dependencies';
import { decideAndAppend } from '../effects';
import { RunKnowledge } from '../knowledge';
import { RunLog, turnsOf } from '../run-log';

/** `conversation.send`: a person's message starts a run, answered at once with its ids; progress follows on `run.<runId>.events`. */
export async function send(
  request: ConversationSendRequest,
  { ports, registry }: Conversation,
  context: RequestContext,
): Promise<ConversationSendReply> {
  // Refused before anything is stored: a run must start in a directory that exists.
  await checkProjectRoot(request.projectRoot, ports.projectRoots);
  const { projectRoot, userMode, reasoningEnabled, message, approve } = request;
  const runId = request.runId ?? ports.newId();
  const conversationId = request.conversationId ?? ports.newId();
  const knowledge = new RunKnowledge(ports);
  // Three reads that do not depend on each other, together: the run, the conversation, the stage policies.
  const [log, earlier] = await Promise.all([
    RunLog.open(ports, runId, context.correlationId),
    readEvents(ports.store, streams.conversation(conversationId), conversationEvents),
    knowledge.fetch({ kind: 'policies', request: { userMode, reasoningEnabled, delegation: NO_DELEGATION } }),
  ]);
  if (log.state.status !== 'new') throw new StagecraftError('CONFLICT', `run ${runId} already exists`);
  await checkConversationProject(ports.store, earlier, request, conversationId);
  // Earlier turns are referenced by revision, not copied: a conversation's text is stored once.
  const last = earlier.at(-1);
  const prior = turnsOf(conversationId, earlier);
  log.usePrior(prior);
  const input = {
    type: 'RunRequested' as const,
    runId,
    conversationId,
    userMode,
    reasoningEnabled,
    message,
    projectRoot,
    historyThrough: last ? Number(last.revision) : undefined,
    compaction: ports.compaction ?? undefined,
    limits: limitsFor(request, ports.limits),
    approve,
    ...(request.editor && { editor: request.editor }),
    prior,
    at: ports.clock().toISOString(),
  };
  await decideAndAppend(ports, log, input, knowledge);
  void registry.drive(log, knowledge);
  return { runId, conversationId };
}

/**
 * The bounds the run starts with: the request's over the service's settings. They are recorded in
 * `RunStarted.limits`, and a resumed or taken-over run keeps them whatever the replica's settings.
 */
function limitsFor({ limits }: ConversationSendRequest, settings: RunLimits): RunLimits {
  const asked = Object.fromEntries(Object.entries(limits ?? {}).filter(([, value]) => value !== undefined));
  return { ...settings, ...asked };
}
