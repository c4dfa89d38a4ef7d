import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventData, runEvents, streams } from '@stagecraft/contracts';
import { earlierTurns } from '@stagecraft/conversation-service';
import { EventStore, readEvents } from '@stagecraft/event-store';
import { DEFAULT_RUN_LIMITS, replayRun } from '@stagecraft/run';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { eventually, macroReasoning, microReasoning, QA_PASS_REPORT } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';
import { RunFeed, runToEnd, startEmbeddedSystem } from './embedded-system';

/**
 * Seed 002 §7 from the outside, in both deployments: a tool loop long enough to compact within its
 * run, then a conversation long enough to compact its turns. What the scripted model was sent after
 * each compaction is checked: the summary, the recent window, and no older message in full.
 */

const FILES = 8;
const SETTINGS = { maxMessages: 10, maxTokens: 2_000, keepRecentTokens: 500 };
const SETTINGS_ENV = {
  STAGECRAFT_COMPACTION: 'extractive',
  STAGECRAFT_COMPACT_MAX_MESSAGES: String(SETTINGS.maxMessages),
  STAGECRAFT_COMPACT_MAX_TOKENS: String(SETTINGS.maxTokens),
  STAGECRAFT_COMPACT_KEEP_TOKENS: String(SETTINGS.keepRecentTokens),
};
const SUMMARY_HEAD = 'Summary of the earlier conversation';

const fileText = (n: number) => `file ${n} of ${FILES}\n${`export const value${n} = ${n}; // a line of module ${n}\n`.repeat(30)}`;

type Message = { role: string; content?: string | null };
const messagesOf = (r: RecordedRequest): Message[] => r.body.messages ?? [];

/**
 * Runs named `tour-*` read f1.ts … f8.ts one per step, finding their place from the last tool result
 * (which every compaction keeps), then answer; every other run answers its question at once.
 */
function script(request: RecordedRequest): ScriptedReply {
  const runId = request.headers['x-stagecraft-run-id'] ?? '';
  const last = [...messagesOf(request)].reverse().find((m) => m.role === 'tool');
  const read = Number(/^file (\d+) of/.exec(String(last?.content ?? ''))?.[1] ?? 0);
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will look into it.` };
    case 'act':
    case 'tool_followup':
      if (runId.startsWith('tour-') && read < FILES)
        return {
          content: microReasoning(`read f${read + 1}.ts`),
          toolCalls: [{ id: `call_${read + 1}`, name: 'read_file', arguments: { path: `f${read + 1}.ts` } }],
        };
      return {
        content: `${microReasoning('answer', 'DONE')}\n${runId.startsWith('tour-') ? `Read all ${FILES} files.` : `The answer to ${runId} is settled.`}`,
      };
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nDone.` };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

interface Deployment extends RunFeed {
  store: EventStore;
}

const run = async (d: Deployment, runId: string, message: string, project: string, conversationId?: string) =>
  (await runToEnd(d, { runId, conversationId, message, userMode: 'agent', reasoningEnabled: true, projectRoot: project }, 60_000)).end;

const compactionsOn = async (store: EventStore, stream: string) =>
  (await store.readStream(stream)).flatMap((e) => (e.type === 'HistoryCompacted' ? [e.data as EventData<'HistoryCompacted'>] : []));

function describeDeployment(
  name: string,
  start: (dir: string, server: ScriptedModelServer) => Promise<Deployment & { close(): Promise<void> }>,
) {
  describe(`${name}: compaction`, () => {
    let server: ScriptedModelServer;
    let dir: string;
    let project: string;
    let d: Deployment & { close(): Promise<void> };
    const conversationId = `conv-${name}`;
    const tourId = `tour-${name}`;
    const requestsOf = (runId: string) =>
      server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);

    beforeAll(async () => {
      server = await startScriptedModelServer({ script });
      dir = mkdtempSync(join(tmpdir(), `stagecraft-compaction-${name}-`));
      project = join(dir, 'project');
      mkdirSync(project);
      for (let n = 1; n <= FILES; n++) writeFileSync(join(project, `f${n}.ts`), fileText(n));
      d = await start(dir, server);
    }, 60_000);

    afterAll(async () => {
      await d?.close();
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('finishes a tool loop that compacted its own history, naming the trigger and the events summarised', async () => {
      const end = await run(d, tourId, `Read the ${FILES} files and tell me what they hold.`, project, conversationId);
      expect(end).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE', answer: `Read all ${FILES} files.` } });
      const [first] = await compactionsOn(d.store, streams.run(tourId));
      expect(first).toMatchObject({
        method: 'extractive',
        trigger: { maxMessages: SETTINGS.maxMessages, maxTokens: SETTINGS.maxTokens },
        covers: [{ stream: streams.run(tourId), from: 1 }],
        summary: { goals: { items: [`Read the ${FILES} files and tell me what they hold.`] } },
      });
      expect(first.trigger.messageCount > SETTINGS.maxMessages || first.trigger.tokenEstimate > SETTINGS.maxTokens).toBe(true);
      expect(first.summary.toolOutputs.items[0]).toMatch(/^read_file \{"path":"f1.ts"\} → file 1 of 8/);
      expect(first.tokensAfter).toBeLessThan(first.tokensBefore);
    });

    it('sent the summary and the recent window after the trigger, and no earlier message in full', () => {
      const requests = requestsOf(tourId).filter((r) => r.stage !== 'qa_review');
      const compacted = requests.filter((r) => String(messagesOf(r)[1]?.content ?? '').startsWith(SUMMARY_HEAD));
      expect(compacted.length).toBeGreaterThan(0);
      // Once compacted, always compacted: every later request starts from a summary.
      const firstCompacted = requests.indexOf(compacted[0]);
      expect(requests.slice(firstCompacted)).toEqual(compacted);
      for (const r of compacted) {
        const rest = messagesOf(r).slice(2);
        expect(rest.some((m) => String(m.content ?? '').startsWith('file 1 of'))).toBe(false);
        expect(rest.some((m) => m.content === `Read the ${FILES} files and tell me what they hold.`)).toBe(false);
        expect(messagesOf(r).some((m) => String(m.content ?? '').includes('<ide_reasoning>') && m.role !== 'system')).toBe(false);
        expect(rest.length).toBeLessThanOrEqual(SETTINGS.maxMessages);
      }
      // Before the trigger the requests grew; after it they stay under the thresholds.
      const sizes = compacted.map((r) => JSON.stringify(messagesOf(r).slice(1)).length / 4);
      expect(Math.max(...sizes)).toBeLessThan(SETTINGS.maxTokens * 1.5);
    });

    it('compacts the conversation’s turns once they grow past the settings, and later runs start from that summary', async () => {
      for (let k = 1; k <= 6; k++) {
        const end = await run(d, `ask-${name}-${k}`, `Question ${k}: what changed in module ${k}?`, project, conversationId);
        expect(end).toMatchObject({ type: 'RunCompleted' });
      }
      const [compacted] = await eventually(
        async () => {
          const found = await compactionsOn(d.store, streams.conversation(conversationId));
          return found.length > 0 ? found : undefined;
        },
        'the conversation to compact',
        { timeoutMs: 5_000 },
      );
      expect(compacted).toMatchObject({
        method: 'extractive',
        covers: [{ stream: streams.conversation(conversationId), from: 0 }],
        summary: { goals: { items: expect.arrayContaining([`Read the ${FILES} files and tell me what they hold.`]) } },
      });
      const last = `ask-${name}-after`;
      await run(d, last, 'Question 7: and now?', project, conversationId);
      const [warmup] = requestsOf(last);
      const sent = messagesOf(warmup);
      expect(String(sent[1].content)).toMatch(new RegExp(`^${SUMMARY_HEAD}`));
      expect(sent.slice(2).some((m) => m.content === `Read the ${FILES} files and tell me what they hold.`)).toBe(false);
      // The user's message, then the stage's part of the prompt (docs/decisions/0052).
      expect(sent.at(-2)).toEqual({ role: 'user', content: 'Question 7: and now?' });
      expect(sent.at(-1)?.role).toBe('system');
    });

    it('decides every compacted run again from its log alone, with the same events', async () => {
      const runIds = [tourId, ...Array.from({ length: 6 }, (_, k) => `ask-${name}-${k + 1}`), `ask-${name}-after`];
      for (const runId of runIds) {
        const log = await readEvents(d.store, streams.run(runId), runEvents);
        const start = log[0].type === 'RunStarted' ? log[0].data : undefined;
        const prior = start ? await earlierTurns(d.store, start.conversationId, start.historyThrough) : undefined;
        expect({ runId, result: replayRun(log, DEFAULT_RUN_LIMITS, prior) }).toMatchObject({ runId, result: { identical: true } });
      }
    });
  });
}

describeDeployment('embedded', async (dir, server) => {
  const system = await startEmbeddedSystem({
    modelUrl: server.url,
    storePath: join(dir, 'embedded.db'),
    conversation: { compaction: { method: 'extractive', ...SETTINGS } },
  });
  return { ...system, close: () => system.stop() };
});

describeDeployment('distributed', async (dir, server) => {
  const prefix = 'compaction';
  const system: DistributedSystem = await startDistributedSystem({
    prefix,
    storePath: join(dir, 'distributed.db'),
    env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted', ...SETTINGS_ENV },
  });
  return {
    bus: system.bus,
    requester: system.requester,
    prefix,
    store: system.store,
    async close() {
      const codes = await system.stop();
      expect(codes).toEqual(system.services.map(() => 0));
    },
  };
});
