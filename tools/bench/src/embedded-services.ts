import { performance } from 'node:perf_hooks';
import { RequestOf, publishContracts, withPrefix } from '@stagecraft/contracts';
import { ConversationOptions, conversationServiceWith } from '@stagecraft/conversation-service';
import { EventStore } from '@stagecraft/event-store';
import { memoryService } from '@stagecraft/memory-service';
import { BusSubscription, MessageBus, Requester } from '@stagecraft/messaging';
import { ModelGateway, createOpenAiGateway } from '@stagecraft/model-gateway';
import { policyService } from '@stagecraft/policy-service';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';
import { qaServiceWith } from '@stagecraft/qa-service';
import { Host, ServiceDefinition, startHost } from '@stagecraft/service-shell';
import { toolExecutionService } from '@stagecraft/tool-execution-service';
import pino from 'pino';

/** The subject prefix every bench deployment uses. */
export const BENCH_PREFIX = 'bench';

/** A gateway to a scripted model server over HTTP: no retries, no logs. */
export function scriptedGateway(baseURL: string, names: { apiKey?: string; model?: string } = {}): ModelGateway {
  return createOpenAiGateway({
    baseURL,
    apiKey: names.apiKey ?? 'test',
    model: names.model ?? 'scripted',
    logger: pino({ level: 'silent' }),
    maxRetries: 0,
  });
}

/** The six services, the conversation and QA services on `gateway`; `options` go to the conversation service. */
export function sixServices(gateway: ModelGateway, options: Omit<ConversationOptions, 'gateway'> = {}): ServiceDefinition[] {
  return [
    conversationServiceWith({ gateway, ...options }),
    policyService,
    promptAssemblyService,
    toolExecutionService,
    qaServiceWith({ gateway }),
    memoryService,
  ];
}

/** Where the bench sends a message and follows its run, in any deployment. */
export interface RunFeed {
  bus: MessageBus;
  requester: Requester;
  prefix: string;
}

export interface EmbeddedServices extends RunFeed {
  host: Host;
  store: EventStore;
  close(): Promise<void>;
}

/** The six services embedded: this process, the in-process bus, a sqlite file (or the memory store), silent logs. */
export async function startEmbeddedServices(options: {
  gateway: ModelGateway;
  /** The sqlite file; none: the memory store. */
  storePath?: string;
  requestTimeoutMs?: number;
  conversation?: Omit<ConversationOptions, 'gateway'>;
}): Promise<EmbeddedServices> {
  const host = await startHost({
    definitions: sixServices(options.gateway, options.conversation),
    transport: 'inproc',
    store: options.storePath === undefined ? 'memory' : `sqlite:${options.storePath}`,
    config: { prefix: BENCH_PREFIX, requestTimeoutMs: options.requestTimeoutMs ?? 30_000, logLevel: 'silent' },
  });
  return {
    host,
    bus: host.ports.bus,
    requester: host.ports.requester,
    prefix: BENCH_PREFIX,
    store: host.ports.store!,
    close: () => host.close(),
  };
}

// The observer only needs to see the end: it reads the type near the head of each message (after the
// stored event's id and position, before its data) rather than parsing every event, so the bench's own
// listener adds next to nothing to the run it measures.
const HEAD_TYPE = /"type":"(RunCompleted|RunFailed)"/;
const endOf = (body: string): 'RunCompleted' | 'RunFailed' | undefined =>
  HEAD_TYPE.exec(body.slice(0, 160))?.[1] as 'RunCompleted' | 'RunFailed' | undefined;

export interface RunEnd {
  end: 'RunCompleted' | 'RunFailed';
  conversationId: string;
  /** From sending the message to the run's end on the live feed. */
  wallMs: number;
}

/** Sends one message and waits for its run's end on the live feed, subscribed (and flushed) before sending. */
export async function runToEnd(on: RunFeed, request: RequestOf<'conversation.send'> & { runId: string }): Promise<RunEnd> {
  let subscription: BusSubscription | undefined;
  const ended = new Promise<RunEnd['end']>((resolve) => {
    subscription = on.bus.subscribe(withPrefix(on.prefix, publishContracts['run.events'].subject(request.runId)), (m) => {
      const end = endOf(m.body);
      if (end) resolve(end);
    });
  });
  await on.bus.flush();
  const started = performance.now();
  const { conversationId } = await on.requester.request('conversation.send', request);
  const end = await ended;
  const wallMs = performance.now() - started;
  subscription?.unsubscribe();
  return { end, conversationId, wallMs };
}
