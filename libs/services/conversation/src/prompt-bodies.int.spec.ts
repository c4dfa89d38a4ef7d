import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatMessage, EventMetadata, ToolSpec, compactMessageHashes, streams } from '@stagecraft/contracts';
import { EventStore, NewEvent, createSqliteEventStore } from '@stagecraft/event-store';
import { hashPrompt, storedHashesOf } from '@stagecraft/model-gateway';
import { PromptBodyStore, restoreRequests } from './prompt-bodies';

const metadata: EventMetadata = { runId: 'r1', correlationId: 'r1', occurredAt: '2026-11-22T00:00:00.000Z' };
const tools: ToolSpec[] = [{ name: 'read_file', description: 'Read a file.', parameters: { type: 'object' } }];
const section = (title: string, text: string) => `\n## ${title}\n\n${text.repeat(40)}\n`;
/** A system prompt long enough to be stored in sections, one of which changes with `step`. */
const systemPrompt = (step: string): ChatMessage => ({
  role: 'system',
  content: `You are the agent.\n${section('Rules', 'Be exact. ')}${section('Step', `${step}. `)}${section('Reasoning', 'Think first. ')}`,
});
const user: ChatMessage = { role: 'user', content: 'Write notes about this project' };
const call = { id: 'c1', name: 'read_file', arguments: '{"path":"README.md"}' };
const asked: ChatMessage = { role: 'assistant', content: '', toolCalls: [call] };
const read: ChatMessage = { role: 'tool', content: '# Sample\n', toolCallId: 'c1' };

describe('prompt bodies, stored once per store', () => {
  let dir: string;
  let stores: EventStore[];
  const open = () => {
    const store = createSqliteEventStore({ path: join(dir, 'events.db') });
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-bodies-'));
    stores = [];
  });
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const bodyStreams = async (store: EventStore) =>
    (await store.readAll()).filter((e) => e.streamId.startsWith(streams.promptBody(''))).map((e) => e.streamId);

  it('stores each body once, in a stream named by its hash, however many writers and retries there are', async () => {
    const { newBodies } = hashPrompt([systemPrompt('one'), user], tools, new Set());
    const hashes = Object.keys(newBodies);
    expect(hashes.length).toBeGreaterThan(3);
    // Two processes on one file, writing the same bodies at once.
    const [first, second] = [open(), open()];
    await Promise.all([
      new PromptBodyStore(first).storeAll(newBodies, metadata),
      new PromptBodyStore(second).storeAll(newBodies, metadata),
    ]);
    expect((await bodyStreams(first)).sort()).toEqual(hashes.map(streams.promptBody).sort());
    for (const hash of hashes) {
      const [event, ...more] = await first.readStream(streams.promptBody(hash));
      expect(more).toEqual([]);
      expect(event).toMatchObject({ type: 'PromptBodyStored', data: { hash, body: newBodies[hash] } });
    }
    // A restarted process looks first, and writes nothing; so does the same process asked again.
    const restarted = new PromptBodyStore(open());
    expect(await restarted.storeAll(newBodies, metadata)).toBe(0);
    expect(await restarted.storeAll(newBodies, metadata)).toBe(0);
    expect(await bodyStreams(first)).toHaveLength(hashes.length);
  });

  it('stores only the section that changed when the next request comes', async () => {
    const store = open();
    const bodies = new PromptBodyStore(store);
    const one = hashPrompt([systemPrompt('one'), user], tools, new Set());
    await bodies.storeAll(one.newBodies, metadata);
    const two = hashPrompt([systemPrompt('two'), user], tools, new Set());
    // The changed section and the system message that lists its sections.
    expect(await bodies.storeAll(two.newBodies, metadata)).toBe(2);
  });

  it('restores a log written before bodies had streams of their own, and one that mixes both', async () => {
    const store = open();
    const first = [systemPrompt('one'), user];
    const second = [systemPrompt('two'), user, asked, read];
    const old = hashPrompt(first, tools, new Set());
    // The request the current version records: ranges of the one before, bodies in their own streams,
    // the run's own messages not stored again.
    const current = hashPrompt(second, tools, new Set(storedHashesOf([user, asked, read])));
    await new PromptBodyStore(store).storeAll(current.newBodies, metadata);
    const request = (n: number, recorded: object) => ({
      requestId: `r1.m${n}`,
      stage: 'act',
      model: 'scripted',
      toolNames: ['read_file'],
      messageCount: 2,
      tokenEstimate: 10,
      ...recorded,
    });
    const message = (n: number, m: ChatMessage, kind: string) => ({
      messageId: `r1.msg${n}`,
      role: m.role,
      content: m.content,
      instructions: [],
      intermediate: false,
      kind,
      ...(m.toolCalls ? { toolCalls: m.toolCalls } : {}),
      ...(m.toolCallId ? { toolCallId: m.toolCallId } : {}),
    });
    const events: Omit<NewEvent, 'id'>[] = [
      {
        type: 'RunStarted',
        data: { runId: 'r1', conversationId: 'c1', userMode: 'agent', reasoningEnabled: true, userInput: user.content, projectRoot: '/p' },
        metadata,
      },
      { type: 'MessageAppended', data: message(1, user, 'user_input'), metadata },
      {
        type: 'ModelRequested',
        data: request(1, { promptHash: old.promptHash, messageHashes: old.messageHashes, newBodies: old.newBodies }),
        metadata,
      },
      { type: 'MessageAppended', data: message(2, asked, 'assistant'), metadata },
      { type: 'MessageAppended', data: message(3, read, 'tool_result'), metadata },
      {
        type: 'ModelRequested',
        data: request(2, { promptHash: current.promptHash, messageHashes: compactMessageHashes(current.messageHashes, old.messageHashes) }),
        metadata,
      },
    ];
    await store.appendToStream(
      streams.run('r1'),
      events.map((e, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, ...e })),
    );

    const restored = await restoreRequests(store, 'r1');
    expect(restored.map((r) => [r.requestId, r.messages])).toEqual([
      ['r1.m1', first],
      ['r1.m2', second],
    ]);
    expect(restored[1].messageHashes).toEqual(current.messageHashes);
  });
});
