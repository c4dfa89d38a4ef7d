import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { QAReport, RunEvent, UserMode } from '@stagecraft/contracts';
import { MessageBus, Requester, connectNatsBus, createRequester, subscribeRunEvents } from '@stagecraft/messaging';
import { foldRun } from '@stagecraft/run';
import { ShellConfig, startHost } from '@stagecraft/service-shell';
import pino from 'pino';
import { allServices } from '../services';
import { describeEvent } from './describe-event';
import { chooseModel } from './model';

export interface ChatFlags {
  root: string;
  mode: UserMode;
  reasoning?: boolean;
  conversation?: string;
  json?: boolean;
  timeout: number;
}

export interface ChatResult {
  runId: string;
  conversationId: string;
  deliveryState: string | null;
  answer: string | null;
  qaReport: QAReport | null;
}

const write = (line: string) => process.stdout.write(`${line}\n`);

/** A system to talk to: a running distributed one over NATS, or all six services started in this process. */
export async function connectSystem(
  config: ShellConfig,
  json: boolean,
): Promise<{ bus: MessageBus; requester: Requester; close(): Promise<void> }> {
  const logger = pino({ level: config.logLevel }, pino.destination(2));
  let bus: MessageBus;
  let close: () => Promise<void>;
  if (config.natsUrl) {
    bus = await connectNatsBus(config.natsUrl, 'stagecraft-cli');
    close = () => bus.close();
    if (!json) write(`stagecraft: using the distributed system at ${config.natsUrl}`);
  } else {
    const model = await chooseModel(process.env, logger);
    if (!json) write(`stagecraft: embedded, store ${config.store}, model: ${model.describe}`);
    const host = await startHost({
      definitions: allServices({ gateway: model.gateway, resume: false }),
      transport: 'inproc',
      store: config.store,
      config,
      env: process.env,
    });
    bus = host.ports.bus;
    close = async () => {
      await host.close();
      await model.scripted?.close();
    };
  }
  const requester = createRequester(bus, { prefix: config.prefix, newId: randomUUID, timeoutMs: config.requestTimeoutMs });
  return { bus, requester, close };
}

/** Sends one message and follows its run to the end, live; embedded unless a NATS URL is given. */
export async function chat(message: string, flags: ChatFlags, config: ShellConfig): Promise<ChatResult & { failed: boolean }> {
  const system = await connectSystem(config, Boolean(flags.json));
  try {
    const runId = randomUUID();
    return await followRun(system.bus, config.prefix, runId, flags, () =>
      system.requester.request('conversation.send', {
        runId,
        conversationId: flags.conversation,
        message,
        userMode: flags.mode,
        reasoningEnabled: Boolean(flags.reasoning),
        projectRoot: resolve(flags.root),
      }),
    );
  } finally {
    await system.close();
  }
}

/**
 * Follows a run live from its first event, printing each (or its JSON), after `start` has asked for
 * it; then the result, the run folded the one way every reader folds it.
 */
export async function followRun<R extends { conversationId: string }>(
  bus: MessageBus,
  prefix: string,
  runId: string,
  flags: { json?: boolean; timeout: number },
  start: () => Promise<R>,
): Promise<ChatResult & Omit<R, keyof ChatResult> & { failed: boolean }> {
  const events: RunEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<RunEvent>((resolveEnd, reject) => {
    timer = setTimeout(() => reject(new Error(`run ${runId} did not finish within ${flags.timeout} ms`)), flags.timeout);
    subscribeRunEvents(bus, prefix, runId, (event) => {
      events.push(event);
      if (flags.json) write(JSON.stringify(event));
      else {
        const line = describeEvent(event);
        if (line) write(line);
      }
      if (event.type === 'RunCompleted' || event.type === 'RunFailed') resolveEnd(event);
    });
  });
  await bus.flush();
  const reply = await start().catch((error: unknown) => {
    clearTimeout(timer);
    throw error;
  });
  const last = await ended.finally(() => clearTimeout(timer));
  // The live feed is the run's own events, so the result is the run folded the one way every reader folds it.
  const run = foldRun(events);
  const result = {
    ...reply,
    runId,
    conversationId: reply.conversationId,
    deliveryState: run.status === 'completed' ? run.deliveryState : null,
    answer: run.status === 'completed' ? run.answer : null,
    qaReport: run.status === 'new' ? null : run.qaReport,
  };
  if (flags.json) write(JSON.stringify(result));
  else if (result.answer !== null) write(`\n${result.answer}\n`);
  return { ...result, failed: last.type === 'RunFailed' };
}
