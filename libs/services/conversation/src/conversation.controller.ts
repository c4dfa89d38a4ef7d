import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { ConversationSendReply, ConversationSendRequest, StagecraftError, StagecraftEvent, streams } from '@stagecraft/contracts';
import type { RequestContext } from '@stagecraft/messaging';
import { pending } from '@stagecraft/run';
import { Handles } from '@stagecraft/service-shell';
import { checkProjectRoot } from '@stagecraft/tools';
import type { DriverPorts } from './driver-ports';
import { settledOrFailed } from './run-driver';
import { RunLog, priorMessages } from './run-log';
import type { RunRegistry } from './run-registry';
import { DRIVER_PORTS, RUN_REGISTRY } from './tokens';

@Controller()
export class ConversationController {
  constructor(
    @Inject(DRIVER_PORTS) private readonly ports: DriverPorts,
    @Inject(RUN_REGISTRY) private readonly registry: RunRegistry,
  ) {}

  /** Starts a run and answers at once with its ids; progress follows on `run.<runId>.events`. */
  @Handles('conversation.send')
  async send(@Payload() request: ConversationSendRequest, @Ctx() context: RequestContext): Promise<ConversationSendReply> {
    // Refused before anything is stored: a run must start in a directory that exists.
    await checkProjectRoot(request.projectRoot, this.ports.projectRoots);
    const { projectRoot } = request;
    const runId = request.runId ?? this.ports.newId();
    const conversationId = request.conversationId ?? this.ports.newId();
    const log = await RunLog.open(this.ports, runId, context.correlationId);
    if (log.state.status !== 'new') throw new StagecraftError('CONFLICT', `run ${runId} already exists`);

    // Earlier turns are referenced by revision, not copied: a conversation's text is stored once.
    const earlier = (await this.ports.store.readStream(streams.conversation(conversationId))) as unknown as (StagecraftEvent & { revision: bigint })[];
    const historyThrough = earlier.length > 0 ? Number(earlier[earlier.length - 1].revision) : undefined;
    log.usePrior(priorMessages(earlier));
    const started = [
      pending('RunStarted', { runId, conversationId, userMode: request.userMode, reasoningEnabled: request.reasoningEnabled, userInput: request.message, projectRoot, historyThrough }),
      pending('MessageAppended', { messageId: `${runId}.input`, role: 'user', content: request.message, instructions: [], intermediate: false, kind: 'user_input' }),
    ];
    // The first stage is entered in the same commit.
    await log.append(await settledOrFailed(this.ports, log.state, started));
    void this.registry.drive(log);
    return { runId, conversationId };
  }
}
