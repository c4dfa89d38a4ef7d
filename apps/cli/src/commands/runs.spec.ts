import { ChatMessage, EventMetadata, streams } from '@stagecraft/contracts';
import { hashPrompt, storedHashesOf } from '@stagecraft/model-gateway';
import { createMemoryEventStore } from '@stagecraft/event-store';
import { runTimeline } from './runs';
import { runTimeline as timelineOf } from './run-timeline';

const at = (seconds: number): EventMetadata => ({
  runId: 'r1',
  correlationId: 'k1',
  occurredAt: new Date(Date.UTC(2026, 10, 21, 0, 0, seconds)).toISOString(),
});
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('runTimeline', () => {
  it("lists a run's events with their offsets from the first, or as JSON, and null for a run the log does not hold", async () => {
    const store = createMemoryEventStore();
    await store.appendToStream(streams.run('r1'), [
      {
        id: uuid(1),
        type: 'ToolCallRequested',
        data: { callId: 'r1.c1', tool: 'read_file', arguments: { path: 'a.ts' }, stage: 'act' },
        metadata: at(0),
      },
      {
        id: uuid(2),
        type: 'ToolCallCompleted',
        data: { callId: 'r1.c1', tool: 'read_file', ok: true, output: 'x', truncated: false, durationMs: 4 },
        metadata: at(1),
      },
      { id: uuid(3), type: 'RunCompleted', data: { deliveryState: 'DONE', answer: 'done' }, metadata: at(2) },
    ]);
    expect(await runTimeline(store, 'r1', false)).toEqual([
      '   +0.000s  ToolCallRequested  ⚙ read_file {"path":"a.ts"}',
      '   +1.000s  ToolCallCompleted  ✓ read_file (4 ms)',
      '   +2.000s  RunCompleted       ✔ completed (DONE)',
      '',
      'answer:',
      'done',
    ]);
    const json = await runTimeline(store, 'r1', true);
    expect(json?.map((line) => JSON.parse(line) as unknown)).toEqual([
      // The raw events, with the hash-chain link the store added to their metadata.
      expect.objectContaining({ type: 'ToolCallRequested', metadata: { ...at(0), chain: expect.any(Object) } }),
      expect.objectContaining({ type: 'ToolCallCompleted' }),
      { type: 'RunCompleted', data: { deliveryState: 'DONE', answer: 'done' }, metadata: { ...at(2), chain: expect.any(Object) } },
    ]);
    expect(await runTimeline(store, 'missing', false)).toBeNull();
  });
});

describe('runTimeline with diffs', () => {
  it("shows each write's diff under its result, clipped unless every diff is asked for, and each message's start", async () => {
    const store = createMemoryEventStore();
    const added = Array.from({ length: 60 }, (_, i) => `+line ${i + 1}`).join('\n');
    const diff = `--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1,60 @@\n${added}\n`;
    await store.appendToStream(streams.run('r1'), [
      {
        id: uuid(1),
        type: 'MessageAppended',
        data: { messageId: 'r1.u', role: 'user', content: 'Write notes', kind: 'user_input' },
        metadata: at(0),
      },
      {
        id: uuid(2),
        type: 'ToolCallCompleted',
        data: {
          callId: 'r1.c1',
          tool: 'write_file',
          ok: true,
          output: 'wrote',
          truncated: false,
          durationMs: 4,
          changes: [{ path: 'notes.md', kind: 'created', added: 60, removed: 0, diff }],
        },
        metadata: at(1),
      },
    ]);
    const clipped = (await runTimeline(store, 'r1', false)) ?? [];
    expect(clipped[0]).toBe('   +0.000s  MessageAppended    user: Write notes');
    expect(clipped.slice(2, 5)).toEqual([
      '            ✎ notes.md +60 −0 (created)',
      '              --- /dev/null',
      '              +++ b/notes.md',
    ]);
    expect(clipped).toHaveLength(2 + 1 + 40 + 1);
    expect(clipped.at(-1)).toBe('              … 23 more lines not shown: stagecraft runs show r1 --diffs');
    const full = (await timelineOf(store, 'r1', false, undefined, { diffs: true })) ?? [];
    expect(full).toHaveLength(2 + 1 + 63);
    expect(full.at(-1)).toBe('              +line 60');
  });
});

describe('runTimeline with prompts', () => {
  it("shows under each model request the messages it sent, rebuilt from the store's prompt bodies", async () => {
    const store = createMemoryEventStore();
    const system: ChatMessage = { role: 'system', content: 'You are the agent.' };
    const user: ChatMessage = { role: 'user', content: 'Add a README.' };
    const hashed = hashPrompt([system, user], [], new Set(storedHashesOf([user])));
    expect(Object.keys(hashed.newBodies)).toEqual([hashed.messageHashes[0]]);
    for (const [hash, body] of Object.entries(hashed.newBodies))
      await store.appendToStream(streams.promptBody(hash), [
        { id: uuid(9), type: 'PromptBodyStored', data: { hash, body }, metadata: at(0) },
      ]);
    const request = {
      requestId: 'r1.m1',
      stage: 'act',
      model: 'scripted',
      toolNames: [],
      messageCount: 2,
      tokenEstimate: 5,
      promptHash: hashed.promptHash,
      messageHashes: hashed.messageHashes,
    };
    await store.appendToStream(streams.run('r1'), [
      {
        id: uuid(1),
        type: 'RunStarted',
        data: { runId: 'r1', conversationId: 'c1', userMode: 'agent', reasoningEnabled: false, userInput: user.content, projectRoot: '/p' },
        metadata: at(0),
      },
      {
        id: uuid(2),
        type: 'MessageAppended',
        data: { messageId: 'r1.input', role: 'user', content: user.content, instructions: [], intermediate: false, kind: 'user_input' },
        metadata: at(0),
      },
      { id: uuid(3), type: 'ModelRequested', data: request, metadata: at(1) },
    ]);
    const lines = await runTimeline(store, 'r1', false, true);
    expect(lines?.slice(-3).map((line) => line.trim())).toEqual([
      '+1.000s  ModelRequested     → asked scripted (2 messages, ~5 tokens)',
      '[system] You are the agent.',
      '[user] Add a README.',
    ]);
    const json = (await runTimeline(store, 'r1', true, true))?.map((line) => JSON.parse(line) as { messages?: ChatMessage[] });
    expect(json?.at(-1)?.messages).toEqual([system, user]);
  });
});
