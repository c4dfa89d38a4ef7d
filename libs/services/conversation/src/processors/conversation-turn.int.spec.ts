import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventData, EventOf, conversationEvents, runEvents, streams } from '@stagecraft/contracts';
import { RecordedEvent, readEvents } from '@stagecraft/event-store';
import { ScriptedModelServer } from '@stagecraft/scripted-model';
import { Host } from '@stagecraft/service-shell';
import { QA_PASS_REPORT, eventually, macroReasoning, microReasoning, toolResultsIn } from '@stagecraft/testing';
import { runToEnd, startEmbedded } from '@stagecraft/testing-system';
import { rememberTurn, turnDigest, turnOf } from './conversation-turn';

const FACT = 'owner-code-q7x3k';
const CONVERSATION = 'digest-conversation';
const runOf = (turn: number) => `digest-turn-${turn}`;

describe('a turn’s digest, across turns', () => {
  let server: ScriptedModelServer;
  let host: Host;
  let project: string;
  let close: (() => Promise<void>) | undefined;
  let turn = 1;

  beforeAll(async () => {
    ({ server, host, project, close } = await startEmbedded({
      // Turn 1 reads notes.md, whose first line holds the fact; turns 2 and 3 answer without a tool.
      script: (request) => {
        switch (request.stage) {
          case 'warmup':
            return { content: `${macroReasoning()}\nI will look at the notes.` };
          case 'act':
          case 'tool_followup':
            if (turn === 1 && toolResultsIn(request.body) === 0)
              return {
                content: microReasoning('read notes.md'),
                toolCalls: [{ id: 'call_notes', name: 'read_file', arguments: { path: 'notes.md' } }],
              };
            return { content: `${microReasoning('finish', 'DONE')}\nTurn ${turn} is done.` };
          case 'delivery_check':
            return { content: `${microReasoning('hand over', 'DONE')}\nTurn ${turn} is done.` };
          case 'qa_review':
            return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
          default:
            return { status: 500, content: `unexpected stage ${request.stage}` };
        }
      },
      dirPrefix: 'stagecraft-digest-',
      readme: '# Sample\n',
      requestTimeoutMs: 30_000,
      // Small enough that the conversation compacts its first turns before turn 3 starts.
      conversation: { compaction: { method: 'extractive', maxMessages: 4, maxTokens: 100_000, keepRecentTokens: 0 } },
    }));
    writeFileSync(join(project, 'notes.md'), `The pool's owner code is ${FACT}.\n${'filler line of the notes\n'.repeat(200)}`);
  }, 60_000);

  afterAll(() => close?.());

  const conversation = () => host.ports.store!.readStream(streams.conversation(CONVERSATION));
  const answers = async () =>
    (await conversation()).filter((e) => e.type === 'MessageAppended' && (e.data as EventData<'MessageAppended'>).kind === 'assistant');

  it('carries a fact of turn 1’s tool output, with its run event, into turn 3’s requests after the turns were compacted', async () => {
    for (; turn <= 3; turn++) {
      const { end } = await runToEnd(host, {
        runId: runOf(turn),
        conversationId: CONVERSATION,
        message: `Turn ${turn}: check the pool.`,
        projectRoot: project,
      });
      expect(end.type).toBe('RunCompleted');
      await eventually(async () => ((await answers()).length === turn ? true : undefined), `turn ${turn} in the conversation`);
    }

    const [first] = await answers();
    const digest = (first.data as EventData<'MessageAppended'>).digest!;
    expect(digest.toolOutputs.items).toEqual([expect.stringContaining(FACT)]);
    expect(digest.toolOutputs.origins![0]!.stream).toBe(streams.run(runOf(1)));
    // Turn 2's run read nothing: its digest, if any, has no tool output.
    expect((await answers())[1].data).not.toHaveProperty('digest.toolOutputs.items.0');

    const compacted = (await conversation()).filter((e) => e.type === 'HistoryCompacted');
    expect(compacted.length).toBeGreaterThan(0);
    const summary = (compacted[0].data as EventData<'HistoryCompacted'>).summary;
    expect(summary.toolOutputs.items).toEqual([expect.stringContaining(FACT)]);
    expect(summary.toolOutputs.origins).toEqual(digest.toolOutputs.origins);

    const started = (await host.ports.store!.readStream(streams.run(runOf(3))))[0] as RecordedEvent & EventOf<'RunStarted'>;
    expect(started.data.historyThrough).toBeGreaterThanOrEqual(Number(compacted[0].revision));
    const requests = server.requests.filter((r) => r.headers['x-stagecraft-run-id'] === runOf(3) && r.stage !== 'qa_review');
    expect(requests.length).toBeGreaterThan(0);
    const origin = digest.toolOutputs.origins![0]!;
    for (const request of requests) {
      const sent = JSON.stringify(request.body?.messages);
      expect(sent).toContain(FACT);
      expect(sent).toContain(`[${origin.stream}@${origin.from}]`);
    }
  }, 180_000);

  it('writes each turn once: remembering a completed run again finds it, and derives the same events', async () => {
    const store = host.ports.store!;
    const run = await readEvents(store, streams.run(runOf(1)), runEvents);
    const completed = (await store.readStream(streams.run(runOf(1)))).find((e) => e.type === 'RunCompleted') as RecordedEvent &
      EventOf<'RunCompleted'>;
    const before = await conversation();
    expect(await rememberTurn(store, completed)).toBe('present');
    expect(await conversation()).toHaveLength(before.length);

    const again = turnOf(run[0] as EventOf<'RunStarted'>, completed, turnDigest(run.slice(0, Number(completed.revision) + 1)));
    const stored = (await readEvents(store, streams.conversation(CONVERSATION), conversationEvents)).filter((e) =>
      again.some((t) => t.id === e.id),
    );
    expect(stored.map((e) => ({ id: e.id, type: e.type, data: e.data }))).toEqual(
      again.map((e) => ({ id: e.id, type: e.type, data: e.data })),
    );
  });
});
