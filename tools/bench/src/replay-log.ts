import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StagecraftError, UserMode, parseEvent, publishContracts, withPrefix } from '@stagecraft/contracts';
import { conversationServiceWith } from '@stagecraft/conversation-service';
import { NewEvent, RecordedEvent, createSqliteEventStore } from '@stagecraft/event-store';
import { memoryService } from '@stagecraft/memory-service';
import { ModelGateway, createOpenAiGateway } from '@stagecraft/model-gateway';
import { policyService } from '@stagecraft/policy-service';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';
import { qaServiceWith } from '@stagecraft/qa-service';
import { demoScript, startScriptedModelServer } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import { REPO_ROOT } from '@stagecraft/testing';
import { toolExecutionService } from '@stagecraft/tool-execution-service';
import pino from 'pino';

/** One message of the template workload; `turnOf` continues the conversation of an earlier message by its index. */
interface Message {
  text: string;
  mode: UserMode;
  reasoning: boolean;
  turnOf?: number;
  /** The model is unreachable for this run: it ends in RunFailed. */
  fails?: boolean;
}

/** The mix every copy repeats: agent runs with and without reasoning, chat runs, a continued conversation, a failure. */
const WORKLOAD: Message[] = [
  { text: 'Summarise this project in NOTES.md', mode: 'agent', reasoning: true },
  { text: 'Now list the scripts it has', mode: 'agent', reasoning: true, turnOf: 0 },
  { text: 'What does convert.js do?', mode: 'chat', reasoning: false },
  { text: 'And stats.js?', mode: 'chat', reasoning: true, turnOf: 2 },
  { text: 'Write notes about this project', mode: 'agent', reasoning: false },
  { text: 'Explain the project layout', mode: 'chat', reasoning: false, fails: true },
];

/** The demo model, except for the runs it is told to fail, which find no endpoint. */
function failingFor(gateway: ModelGateway, failing: Set<string>): ModelGateway {
  return {
    model: gateway.model,
    complete(meta, messages, tools, options) {
      if (failing.has(meta.runId)) return Promise.reject(new StagecraftError('UNAVAILABLE', 'model endpoint unreachable: Connection error.'));
      return gateway.complete(meta, messages, tools, options);
    },
  };
}

const PREFIX = 'bench';

/** Sends one message and waits for its run to end; returns the conversation it ran in. */
async function send(host: Host, runId: string, message: Message, conversationId: string | undefined, projectRoot: string): Promise<string> {
  const subject = withPrefix(PREFIX, publishContracts['run.events'].subject(runId));
  let unsubscribe = () => {};
  const ended = new Promise<void>((resolve) => {
    const subscription = host.ports.bus.subscribe(subject, (m) => {
      if (/"type":"Run(Completed|Failed)"/.test(m.body)) resolve();
    });
    unsubscribe = () => subscription.unsubscribe();
  });
  await host.ports.bus.flush();
  const reply = await host.ports.requester.request('conversation.send', {
    runId,
    conversationId,
    message: message.text,
    userMode: message.mode,
    reasoningEnabled: message.reasoning,
    projectRoot,
  });
  await ended;
  unsubscribe();
  return reply.conversationId;
}

/**
 * The workload run for real once (all six services embedded, the demo model over HTTP, tools on a
 * copy of the sample project): every event as the services wrote it, in log order.
 */
export async function recordTemplate(): Promise<RecordedEvent[]> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-replay-template-'));
  const project = join(dir, 'sample-project');
  cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
  const server = await startScriptedModelServer({ script: demoScript() });
  const failing = new Set<string>();
  const demo = createOpenAiGateway({
    baseURL: server.url,
    apiKey: 'scripted',
    model: 'stagecraft-scripted-demo',
    maxRetries: 0,
    logger: pino({ level: 'silent' }),
  });
  const gateway = failingFor(demo, failing);
  const host = await startHost({
    definitions: [
      conversationServiceWith({ gateway, resume: false }),
      policyService,
      promptAssemblyService,
      toolExecutionService,
      qaServiceWith({ gateway }),
      memoryService,
    ],
    transport: 'inproc',
    store: `sqlite:${join(dir, 'template.db')}`,
    config: { prefix: PREFIX, requestTimeoutMs: 30_000, logLevel: 'silent' },
  });
  try {
    const conversations: string[] = [];
    for (const message of WORKLOAD) {
      const runId = randomUUID();
      if (message.fails) failing.add(runId);
      const continued = message.turnOf === undefined ? undefined : conversations[message.turnOf];
      conversations.push(await send(host, runId, message, continued, project));
    }
    // The last turn reaches its conversation stream just after the run ends (the follow-up processor runs after the commit).
    await new Promise((resolve) => setTimeout(resolve, 300));
    return await host.ports.store!.readAll();
  } finally {
    await host.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every id the template's streams are named by (runs, conversations, tool calls): what a copy renames. */
function idsOf(template: RecordedEvent[]): RegExp {
  const ids = new Set<string>();
  for (const e of template) {
    const match = /^(run|conversation|toolcall)-(.+)$/.exec(e.streamId);
    if (match) ids.add(match[2]);
  }
  const longestFirst = [...ids].sort((a, b) => b.length - a.length);
  return new RegExp(longestFirst.map(escape).join('|'), 'g');
}

export interface GeneratedLog {
  events: number;
  bytes: number;
  runs: number;
  copies: number;
  templateEvents: number;
}

/**
 * Writes copies of the template into a fresh SQLite log until it holds at least `target` events:
 * each copy's runs, conversations and tool calls renamed, new event ids, the events' order within
 * a copy kept, and every event checked against its zod schema on the way in.
 */
export async function writeReplayLog(path: string, template: RecordedEvent[], target: number): Promise<GeneratedLog> {
  const rename = idsOf(template);
  const texts = template.map((e) => ({ stream: e.streamId, type: e.type, body: JSON.stringify([e.data, e.metadata]) }));
  const copies = Math.ceil(target / template.length);
  const store = createSqliteEventStore({ path });
  let bytes = 0;
  try {
    for (let copy = 0; copy < copies; copy += 1) {
      const suffix = `-c${copy}`;
      let batch: NewEvent[] = [];
      let stream = '';
      const flush = async () => {
        if (batch.length > 0) await store.appendToStream(stream, batch);
        batch = [];
      };
      for (const t of texts) {
        const renamedStream = t.stream.replace(rename, (id) => id + suffix);
        const body = t.body.replace(rename, (id) => id + suffix);
        const [data, metadata] = JSON.parse(body) as [unknown, unknown];
        parseEvent({ type: t.type, data, metadata });
        bytes += Buffer.byteLength(body);
        if (renamedStream !== stream) await flush();
        stream = renamedStream;
        batch.push({ id: randomUUID(), type: t.type, data, metadata });
      }
      await flush();
    }
  } finally {
    await store.close();
  }
  const runs = template.filter((e) => e.type === 'RunStarted').length * copies;
  return { events: copies * template.length, bytes, runs, copies, templateEvents: template.length };
}
