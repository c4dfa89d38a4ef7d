import { RequestOf, StagecraftEvent } from '@stagecraft/contracts';
import { ConversationOptions, conversationServiceWith } from '@stagecraft/conversation-service';
import { EventStore } from '@stagecraft/event-store';
import { memoryService } from '@stagecraft/memory-service';
import { BusSubscription, MessageBus, Requester, subscribeRunEvents } from '@stagecraft/messaging';
import { createOpenAiGateway } from '@stagecraft/model-gateway';
import { policyService } from '@stagecraft/policy-service';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';
import { qaServiceWith } from '@stagecraft/qa-service';
import { Host, startHost } from '@stagecraft/service-shell';
import { toolExecutionService } from '@stagecraft/tool-execution-service';
import pino from 'pino';

export interface EmbeddedSystem {
  host: Host;
  bus: MessageBus;
  requester: Requester;
  prefix: string;
  /** The host's sqlite store. */
  store: EventStore;
  stop(): Promise<void>;
}

/**
 * The embedded deployment for an e2e test: the six services in this process on the in-process bus
 * and one sqlite file, the conversation and QA services answered by the scripted model at `modelUrl`.
 */
export async function startEmbeddedSystem(options: {
  modelUrl: string;
  storePath: string;
  prefix?: string;
  timeoutMs?: number;
  /** Options of the conversation service (limits, compaction, …). */
  conversation?: Omit<ConversationOptions, 'gateway'>;
}): Promise<EmbeddedSystem> {
  const prefix = options.prefix ?? 'stagecraft';
  const gateway = createOpenAiGateway({
    baseURL: options.modelUrl,
    apiKey: 'test',
    model: 'scripted',
    logger: pino({ level: 'silent' }),
    maxRetries: 0,
  });
  const host = await startHost({
    definitions: [
      conversationServiceWith({ gateway, ...options.conversation }),
      policyService,
      promptAssemblyService,
      toolExecutionService,
      qaServiceWith({ gateway }),
      memoryService,
    ],
    transport: 'inproc',
    store: `sqlite:${options.storePath}`,
    config: { prefix, requestTimeoutMs: options.timeoutMs ?? 10_000, logLevel: 'silent' },
  });
  return {
    host,
    bus: host.ports.bus,
    requester: host.ports.requester,
    prefix,
    store: host.ports.store!,
    stop: () => host.close(),
  };
}

/** Where a test sends a message and follows its run, in either deployment. */
export interface RunFeed {
  bus: MessageBus;
  requester: Requester;
  prefix: string;
}

/**
 * Sends one message and waits for its run's end on the live feed, subscribed (and flushed) before
 * sending so the end cannot be missed; fails if the run has not ended within `timeoutMs`.
 */
export async function runToEnd(
  on: RunFeed,
  request: RequestOf<'conversation.send'> & { runId: string },
  timeoutMs: number,
): Promise<{ end: StagecraftEvent; conversationId: string }> {
  const { runId } = request;
  let subscription: BusSubscription | undefined;
  const ended = new Promise<StagecraftEvent>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`run ${runId} did not end within ${timeoutMs / 1000} s`)), timeoutMs);
    subscription = subscribeRunEvents(on.bus, on.prefix, runId, (e) => {
      if (e.type === 'RunCompleted' || e.type === 'RunFailed') {
        clearTimeout(timer);
        resolve(e);
      }
    });
  });
  await on.bus.flush();
  const { conversationId } = await on.requester.request('conversation.send', request);
  const end = await ended;
  subscription?.unsubscribe();
  return { end, conversationId };
}
