import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestOf } from '@stagecraft/contracts';
import { BusSubscription, RunFeedEvent, subscribeRunEvents } from '@stagecraft/messaging';
import { ModelGateway, createOpenAiGateway } from '@stagecraft/model-gateway';
import { ConversationOptions, conversationServiceWith } from '@stagecraft/conversation-service';
import { memoryService } from '@stagecraft/memory-service';
import { policyService } from '@stagecraft/policy-service';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';
import { qaServiceWith } from '@stagecraft/qa-service';
import { toolExecutionService } from '@stagecraft/tool-execution-service';
import { Script, ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { Host, ServiceDefinition, startHost } from '@stagecraft/service-shell';
import pino from 'pino';

/**
 * The six services embedded for a spec: one process, the in-process bus, a sqlite file in a fresh
 * temporary folder, and a scripted model server behind the model-facing two. A spec of one service
 * hosts the others from here, as a deployment runs them beside it; production code may not import
 * this lib (its tag is allowed only in test files).
 */

/** The services that call no model, by name, to host beside the one a spec is about. */
export const modelFreeServices = {
  policy: policyService,
  promptAssembly: promptAssemblyService,
  toolExecution: toolExecutionService,
  memory: memoryService,
} as const;

/** A gateway to the scripted model server at `url`: no retries, no logs. */
export const scriptedGateway = (url: string): ModelGateway =>
  createOpenAiGateway({ baseURL: url, apiKey: 'test', model: 'scripted', logger: pino({ level: 'silent' }), maxRetries: 0 });

/** The six services, the conversation and QA services on `gateway`; `options` go to the conversation service. */
export const sixServices = (gateway: ModelGateway, options: Omit<ConversationOptions, 'gateway'> = {}): ServiceDefinition[] => [
  conversationServiceWith({ gateway, ...options }),
  policyService,
  promptAssemblyService,
  toolExecutionService,
  qaServiceWith({ gateway }),
  memoryService,
];

export interface EmbeddedServices {
  server: ScriptedModelServer;
  host: Host;
  /** The temporary folder: the store is `events.db` in it, and projects may go next to it. */
  dir: string;
  /** `project` in the folder: created, holding only `README.md`, when `readme` was given. */
  project: string;
  /** Stops the host and the server and removes the folder. */
  close(): Promise<void>;
}

export async function startEmbedded(options: {
  script: Script;
  /** The start of the temporary folder's name. */
  dirPrefix: string;
  /** The README of a project to create in the folder before the services start. */
  readme?: string;
  requestTimeoutMs?: number;
  conversation?: Omit<ConversationOptions, 'gateway'>;
}): Promise<EmbeddedServices> {
  const server = await startScriptedModelServer({ script: options.script });
  const dir = mkdtempSync(join(tmpdir(), options.dirPrefix));
  const project = join(dir, 'project');
  if (options.readme !== undefined) {
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), options.readme);
  }
  const removeAll = async (host?: Host) => {
    await host?.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const host = await startHost({
      definitions: sixServices(scriptedGateway(server.url), options.conversation),
      transport: 'inproc',
      store: `sqlite:${join(dir, 'events.db')}`,
      config: { prefix: 'stagecraft', requestTimeoutMs: options.requestTimeoutMs ?? 10_000, logLevel: 'silent' },
    });
    return { server, host, dir, project, close: () => removeAll(host) };
  } catch (error) {
    await removeAll();
    throw error;
  }
}

export interface FollowedRun<R> {
  /** What starting the run answered. */
  reply: R;
  /** The run's last event: RunCompleted or RunFailed, as the public feed carries it. */
  end: RunFeedEvent;
  /** Every event the live feed carried (public events, feed/v1), in order, up to the end. */
  live: RunFeedEvent[];
}

/** Starts a run with `start` (a send or a fork under a known id) and waits for its end on the live feed. */
export async function followRun<R>(host: Host, runId: string, start: () => Promise<R>): Promise<FollowedRun<R>> {
  const live: RunFeedEvent[] = [];
  let subscription: BusSubscription | undefined;
  const finished = new Promise<RunFeedEvent>((resolve) => {
    subscription = subscribeRunEvents(host.ports.bus, 'stagecraft', runId, (e) => {
      live.push(e);
      if (e.type === 'RunCompleted' || e.type === 'RunFailed') resolve(e);
    });
  });
  const reply = await start();
  const end = await finished;
  subscription?.unsubscribe();
  return { reply, end, live };
}

type SendRequest = Omit<RequestOf<'conversation.send'>, 'runId' | 'userMode' | 'reasoningEnabled'> &
  Partial<Pick<RequestOf<'conversation.send'>, 'userMode' | 'reasoningEnabled'>> & { runId: string };

/** Sends one message (an agent run with reasoning unless it says otherwise) and waits for the run's end. */
export const runToEnd = (host: Host, request: SendRequest) =>
  followRun(host, request.runId, () =>
    host.ports.requester.request('conversation.send', {
      ...request,
      userMode: request.userMode ?? 'agent',
      reasoningEnabled: request.reasoningEnabled ?? true,
    }),
  );
