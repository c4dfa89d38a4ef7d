import {
  ConversationForkReply,
  ConversationForkRequest,
  ConversationSendReply,
  ConversationSendRequest,
  NO_DELEGATION,
  StagecraftError,
  conversationEvents,
  streams,
} from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import type { RequestContext } from '@stagecraft/messaging';
import { checkProjectRoot } from '@stagecraft/tools';
import type { DriverPorts } from './driver-ports';
import { checkSameProject, conversationRoot, inFlightRoot } from './conversation-owner';
import { decideAndAppend } from './effects';
import { forkRun } from './fork';
import { RunKnowledge } from './knowledge';
import { RunLog, turnsOf } from './run-log';
import type { RunRegistry } from './run-registry';

/** `conversation.send` and `conversation.fork`: a person's message starts a run; a recorded run's head starts another. */
export class ConversationHandlers {
  constructor(
    private readonly ports: DriverPorts,
    private readonly registry: RunRegistry,
  ) {}

  /** Starts a run and answers at once with its ids; progress follows on `run.<runId>.events`. */
  async send(request: ConversationSendRequest, context: RequestContext): Promise<ConversationSendReply> {
    // Refused before anything is stored: a run must start in a directory that exists.
    await checkProjectRoot(request.projectRoot, this.ports.projectRoots);
    const { projectRoot, userMode, reasoningEnabled, message, approve } = request;
    const runId = request.runId ?? this.ports.newId();
    const conversationId = request.conversationId ?? this.ports.newId();
    const knowledge = new RunKnowledge(this.ports);
    // Three reads that do not depend on each other, together: the run, the conversation, the stage policies.
    const [log, earlier] = await Promise.all([
      RunLog.open(this.ports, runId, context.correlationId),
      readEvents(this.ports.store, streams.conversation(conversationId), conversationEvents),
      knowledge.fetch({ kind: 'policies', request: { userMode, reasoningEnabled, delegation: NO_DELEGATION } }),
    ]);
    if (log.state.status !== 'new') throw new StagecraftError('CONFLICT', `run ${runId} already exists`);
    const owner =
      (await conversationRoot(this.ports.store, earlier)) ??
      (request.conversationId === undefined ? null : await inFlightRoot(this.ports.store, conversationId));
    checkSameProject(conversationId, owner, projectRoot);
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
      compaction: this.ports.compaction ?? undefined,
      limits: this.ports.limits,
      approve,
      prior,
      at: this.ports.clock().toISOString(),
    };
    await decideAndAppend(this.ports, log, input, knowledge);
    void this.registry.drive(log, knowledge);
    return { runId, conversationId };
  }

  /** Starts a run from a recorded run's head and answers at once; the new run goes on on `run.<runId>.events`. */
  async fork(request: ConversationForkRequest, context: RequestContext): Promise<ConversationForkReply> {
    const reply = await forkRun(this.ports, request, context.correlationId);
    await this.registry.resume(reply.runId);
    return reply;
  }
}
