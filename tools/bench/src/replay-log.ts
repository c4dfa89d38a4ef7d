import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StagecraftError, UserMode, parseEvent, streams } from '@stagecraft/contracts';
import { EventStore, NewEvent, RecordedEvent, createSqliteEventStore } from '@stagecraft/event-store';
import { ModelGateway } from '@stagecraft/model-gateway';
import { demoScript, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT } from '@stagecraft/testing';
import { runToEnd, scriptedGateway, startEmbeddedServices } from './embedded-services';

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
      if (failing.has(meta.runId))
        return Promise.reject(new StagecraftError('UNAVAILABLE', 'model endpoint unreachable: Connection error.'));
      return gateway.complete(meta, messages, tools, options);
    },
  };
}

interface Workload {
  /** Sends one message and waits for its run to end; `conversationId` continues a conversation. */
  send(message: Message, conversationId?: string): Promise<string>;
  store: EventStore;
}

/**
 * All six services embedded on a temporary SQLite file, the demo model over HTTP (unreachable for the
 * messages that are to fail), tools on a copy of the sample project.
 */
async function withWorkload<T>(use: (workload: Workload) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-replay-workload-'));
  const project = join(dir, 'sample-project');
  cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
  const server = await startScriptedModelServer({ script: demoScript() });
  const failing = new Set<string>();
  const demo = scriptedGateway(server.url, { apiKey: 'scripted', model: 'stagecraft-scripted-demo' });
  const services = await startEmbeddedServices({
    gateway: failingFor(demo, failing),
    storePath: join(dir, 'workload.db'),
    conversation: { resume: false },
  });
  try {
    const result = await use({
      store: services.store,
      async send(message, conversationId) {
        const runId = randomUUID();
        if (message.fails) failing.add(runId);
        const { text, mode, reasoning } = message;
        const request = { runId, conversationId, message: text, userMode: mode, reasoningEnabled: reasoning, projectRoot: project };
        return (await runToEnd(services, request)).conversationId;
      },
    });
    return result;
  } finally {
    await services.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The last turn reaches its conversation stream just after the run ends (the follow-up processor runs after the commit). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/** The workload run for real once: every event as the services wrote it, in log order. */
export function recordTemplate(): Promise<RecordedEvent[]> {
  return withWorkload(async ({ send, store }) => {
    const conversations: string[] = [];
    for (const message of WORKLOAD)
      conversations.push(await send(message, message.turnOf === undefined ? undefined : conversations[message.turnOf]));
    await settle();
    return store.readAll();
  });
}

const QUESTIONS = ['What does convert.js do?', 'And stats.js?', 'How would I add a test for it?', 'Which file should change first?'];

/** One conversation of `turns` chat turns, run for real; what `fold` makes of the store at the end. */
export function recordConversation<T>(turns: number, fold: (store: EventStore, conversationId: string) => Promise<T>): Promise<T> {
  return withWorkload(async ({ send, store }) => {
    let conversationId: string | undefined;
    for (let turn = 0; turn < turns; turn += 1) {
      const message: Message = {
        text: `${QUESTIONS[turn % QUESTIONS.length]} (turn ${turn + 1})`,
        mode: 'chat',
        reasoning: turn % 2 === 0,
      };
      conversationId = await send(message, conversationId);
    }
    await settle();
    return fold(store, conversationId ?? '');
  });
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
 * Prompt bodies are stored once per store under their hash: the first copy writes them as they are
 * (their text is what the hash was taken of), later copies use them.
 */
const storedOnce = (stream: string) => stream.startsWith(streams.promptBody(''));

/**
 * Writes copies of the template into a fresh SQLite log until it holds at least `target` events:
 * each copy's runs, conversations and tool calls renamed, new event ids, the events' order within
 * a copy kept, and every event checked against its zod schema on the way in.
 */
export async function writeReplayLog(path: string, template: RecordedEvent[], target: number): Promise<GeneratedLog> {
  const rename = idsOf(template);
  const texts = template.map((e) => ({ stream: e.streamId, type: e.type, body: JSON.stringify([e.data, e.metadata]) }));
  const perCopy = texts.filter((t) => !storedOnce(t.stream)).length;
  const copies = 1 + Math.max(0, Math.ceil((target - texts.length) / perCopy));
  const store = createSqliteEventStore({ path });
  let bytes = 0;
  let events = 0;
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
        const once = storedOnce(t.stream);
        if (copy > 0 && once) continue;
        const renamedStream = once ? t.stream : t.stream.replace(rename, (id) => id + suffix);
        const body = once ? t.body : t.body.replace(rename, (id) => id + suffix);
        const [data, metadata] = JSON.parse(body) as [unknown, unknown];
        parseEvent({ type: t.type, data, metadata });
        bytes += Buffer.byteLength(body);
        events += 1;
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
  return { events, bytes, runs, copies, templateEvents: template.length };
}
