import { EventOf, streams } from '@stagecraft/contracts';
import { ScriptedModelServer } from '@stagecraft/scripted-model';
import { Host } from '@stagecraft/service-shell';
import { readWriteAgentScript } from '@stagecraft/testing';
import { runToEnd, startEmbedded } from '@stagecraft/testing-system';

/** NATS's default max payload: no event of a run may need more to be published. */
const MAX_PAYLOAD = 1024 * 1024;
const TURN_CHARS = 190_000;
const TURNS = 28; // 28 turns × 2 messages × 190 KB ≈ 10.6 MB of conversation

describe('a 10 MB conversation', () => {
  let server: ScriptedModelServer;
  let host: Host;
  let project: string;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ server, host, project, close } = await startEmbedded({
      script: readWriteAgentScript,
      dirPrefix: 'stagecraft-long-',
      readme: '# Sample\n',
      requestTimeoutMs: 30_000,
    }));
  });

  afterAll(() => close?.());

  /** The turns a finished run leaves on its conversation stream, as the conversation service writes them. */
  async function seedConversation(conversationId: string): Promise<number> {
    const store = host.ports.store!;
    let chars = 0;
    for (let turn = 0; turn < TURNS; turn++) {
      const metadata = { runId: `old-${turn}`, conversationId, correlationId: `old-${turn}`, occurredAt: '2026-11-01T00:00:00.000Z' };
      const text = (who: string) => `${who} ${turn}: ${'lorem ipsum '.repeat(TURN_CHARS / 12)}`;
      const events: EventOf<'MessageAppended'>[] = [
        {
          type: 'MessageAppended',
          data: {
            messageId: `old-${turn}.user`,
            role: 'user',
            content: text('question'),
            instructions: [],
            intermediate: false,
            kind: 'user_input',
          },
          metadata,
        },
        {
          type: 'MessageAppended',
          data: {
            messageId: `old-${turn}.answer`,
            role: 'assistant',
            content: text('answer'),
            instructions: [],
            intermediate: false,
            kind: 'assistant',
          },
          metadata,
        },
      ];
      chars += events.reduce((sum, e) => sum + e.data.content.length, 0);
      await store.appendToStream(
        streams.conversation(conversationId),
        events.map((e, i) => ({ id: `old-${turn}-${i}`, ...e })),
        { expectedRevision: 'any' },
      );
    }
    return chars;
  }

  it('keeps working: the run completes, refers to the earlier turns instead of copying them, compacts them before asking, and every event fits a message', async () => {
    const conversationId = 'long-conversation';
    const chars = await seedConversation(conversationId);
    expect(chars).toBeGreaterThan(10_000_000);

    const runId = 'run-after-10mb';
    const { end, live } = await runToEnd(host, { runId, conversationId, message: 'Write notes', projectRoot: project });
    expect(end).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE' } });

    const stored = await host.ports.store!.readStream(streams.run(runId));
    const sizes = stored.map((e) => Buffer.byteLength(JSON.stringify({ type: e.type, data: e.data, metadata: e.metadata })));
    expect(Math.max(...sizes)).toBeLessThan(MAX_PAYLOAD);
    // The earlier turns are referenced once, by revision: the run's own log stays small.
    expect(stored[0]).toMatchObject({ type: 'RunStarted', data: { historyThrough: TURNS * 2 - 1 } });
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(200_000);
    // 2.6 million tokens of earlier turns cannot be sent: the run compacted them before its first request.
    const compacted = stored.find((e) => e.type === 'HistoryCompacted');
    expect(compacted?.data).toMatchObject({
      method: 'extractive',
      replaced: TURNS * 2,
      covers: [{ stream: streams.conversation(conversationId), from: 0, to: TURNS * 2 - 1 }],
    });
    const first = server.requests.find((r) => r.headers['x-stagecraft-run-id'] === runId)!;
    const messages = (first.body as { messages: { role: string; content: string }[] }).messages;
    // System, summary, the user's message, then the stage's part of the prompt (docs/decisions/0052).
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'user', 'system']);
    expect(messages[1].content).toMatch(/^Summary of the earlier conversation/);
    expect(messages[1].content).toContain('- question 0: lorem ipsum');
    expect(messages[1].content.length).toBeLessThan(20_000);
    expect(messages.at(-2)?.content).toBe('Write notes');
    expect(live.map((e) => e.type)).toEqual(stored.map((e) => e.type));
  }, 120_000);
});
