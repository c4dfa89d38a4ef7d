import type { ChatMessage, ToolSpec } from '@stagecraft/contracts';
import {
  PIECEWISE_FROM,
  hashPrompt,
  messageBody,
  piecesNamedBy,
  piecesOf,
  restoreMessages,
  storedBodiesOf,
  storedHashesOf,
} from './hash-prompt';

const system: ChatMessage = { role: 'system', content: 'You are the agent.' };
const user: ChatMessage = { role: 'user', content: 'Add a README.' };
const tools: ToolSpec[] = [
  { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];

describe('hashPrompt', () => {
  it('gives equal messages equal hashes whatever the key order or undefined fields', () => {
    const a = hashPrompt([{ role: 'user', content: 'x' }], [], new Set());
    const b = hashPrompt([{ content: 'x', toolCalls: undefined, role: 'user' } as ChatMessage], [], new Set());
    expect(a).toEqual(b);
    expect(a.messageHashes[0]).toMatch(/^[a-f0-9]{64}$/);
  });

  it('changes the prompt hash when a message, the order or the tools change', () => {
    const base = hashPrompt([system, user], tools, new Set()).promptHash;
    expect(hashPrompt([user, system], tools, new Set()).promptHash).not.toBe(base);
    expect(hashPrompt([system, { ...user, content: 'Add a LICENSE.' }], tools, new Set()).promptHash).not.toBe(base);
    expect(hashPrompt([system, user], [], new Set()).promptHash).not.toBe(base);
    expect(hashPrompt([system, user], tools, new Set(['unrelated'])).promptHash).toBe(base);
  });

  it('tells tool calls and tool results apart from plain text with the same content', () => {
    const call = { id: 'c1', name: 'read_file', arguments: '{"path":"a"}' };
    const hashes = hashPrompt(
      [
        { role: 'assistant', content: '' },
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', content: 'ok', toolCallId: 'c1' },
        { role: 'tool', content: 'ok', toolCallId: 'c2' },
      ],
      [],
      new Set(),
    ).messageHashes;
    expect(new Set(hashes).size).toBe(4);
  });

  it('stores a body only the first time it appears', () => {
    const first = hashPrompt([system, user], tools, new Set());
    expect(Object.keys(first.newBodies)).toEqual(first.messageHashes);
    expect(JSON.parse(first.newBodies[first.messageHashes[1]])).toEqual(user);

    const reply: ChatMessage = { role: 'assistant', content: 'Done.' };
    const second = hashPrompt([system, user, reply], tools, new Set(first.messageHashes));
    expect(Object.keys(second.newBodies)).toEqual([second.messageHashes[2]]);
    expect(second.messageHashes.slice(0, 2)).toEqual(first.messageHashes);
  });

  it('stores a body repeated inside one request once', () => {
    const result = hashPrompt([user, user], [], new Set());
    expect(result.messageHashes[0]).toBe(result.messageHashes[1]);
    expect(Object.keys(result.newBodies)).toHaveLength(1);
  });

  it('estimates tokens as characters (contents, tool calls, tools) over four, rounded up', () => {
    const result = hashPrompt([user], [], new Set());
    expect(result.tokenEstimate).toBe(Math.ceil((user.content.length + '[]'.length) / 4));
    expect(hashPrompt([user], tools, new Set()).tokenEstimate).toBeGreaterThan(result.tokenEstimate);
  });

  it('keeps a 50-step run linear: stored bytes equal the distinct bodies, not the sum of every prompt', () => {
    const messages: ChatMessage[] = [system, user];
    const known = new Set<string>();
    const distinct = new Map<string, number>();
    let stored = 0;
    let resent = 0;
    for (let step = 0; step < 50; step++) {
      const result = hashPrompt(messages, tools, known);
      for (const [hash, body] of Object.entries(result.newBodies)) {
        stored += body.length;
        known.add(hash);
      }
      for (const message of messages) distinct.set(messageBody(message), messageBody(message).length);
      resent += messages.reduce((sum, m) => sum + messageBody(m).length, 0);
      const call = { id: `call-${step}`, name: 'read_file', arguments: JSON.stringify({ path: `src/file-${step}.ts` }) };
      messages.push({ role: 'assistant', content: `Reading file ${step}.`, toolCalls: [call] });
      messages.push({ role: 'tool', content: `contents of file ${step}\n`.repeat(20), toolCallId: call.id });
    }
    const distinctBytes = [...distinct.values()].reduce((a, b) => a + b, 0);
    expect(stored).toBe(distinctBytes);
    expect(known.size).toBe(distinct.size);
    // Whole prompts per request would have stored about steps/2 times as much.
    expect(resent / stored).toBeGreaterThan(20);
  });

  describe('a long message, stored in pieces', () => {
    const section = (title: string, words: number) => `## ${title}\n\n${'lorem ipsum dolor sit amet '.repeat(words)}\n`;
    const promptWith = (summary: string) =>
      `You are the agent.\n\n${section('Rules', 30)}\n${section('Tools', 30)}\n## Stage\n\n${summary}\n\n${section('Reasoning', 30)}`;
    const bodiesOf = (...results: ReturnType<typeof hashPrompt>[]) => new Map(results.flatMap((r) => Object.entries(r.newBodies)));

    it('cuts before each heading line, and the pieces join back into the content', () => {
      const content = promptWith('1. read_file ok');
      expect(content.length).toBeGreaterThanOrEqual(PIECEWISE_FROM);
      const pieces = piecesOf(content);
      expect(pieces).toHaveLength(5);
      expect(pieces.slice(1).every((p) => p.startsWith('\n## '))).toBe(true);
      expect(pieces.join('')).toBe(content);
    });

    it('stores only the section that changed when the same prompt comes again with a new summary', () => {
      const first = hashPrompt([{ role: 'system', content: promptWith('1. read_file ok') }, user], tools, new Set());
      // 5 pieces, the system message body (its piece hashes) and the user message.
      expect(Object.keys(first.newBodies)).toHaveLength(7);
      const second = hashPrompt(
        [{ role: 'system', content: promptWith('1. read_file ok\n2. write_file ok') }, user],
        tools,
        new Set(Object.keys(first.newBodies)),
      );
      const stored = Object.values(second.newBodies);
      expect(stored).toHaveLength(2);
      expect(stored.find((b) => b.includes('write_file ok'))).toBe('\n## Stage\n\n1. read_file ok\n2. write_file ok\n');
      expect(second.promptHash).not.toBe(first.promptHash);
    });

    it('restores every request exactly from the hashes and the bodies stored so far', () => {
      const one: ChatMessage[] = [{ role: 'system', content: promptWith('none yet') }, user];
      const call = { id: 'c1', name: 'read_file', arguments: '{"path":"README.md"}' };
      const two: ChatMessage[] = [
        { role: 'system', content: promptWith('1. read_file ok') },
        user,
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', content: '# Readme\n', toolCallId: 'c1' },
      ];
      const first = hashPrompt(one, tools, new Set());
      const second = hashPrompt(two, tools, new Set(Object.keys(first.newBodies)));
      expect(restoreMessages(first.messageHashes, bodiesOf(first))).toEqual(one);
      expect(restoreMessages(second.messageHashes, bodiesOf(first, second))).toEqual(two);
      expect(() => restoreMessages(second.messageHashes, bodiesOf(second))).toThrow(/no body stored/);
    });

    it('rebuilds from messages the log holds the very bodies a request stored for them, pieces included', () => {
      const long: ChatMessage = { role: 'tool', content: promptWith('a long tool result'), toolCallId: 'c1' };
      const result = hashPrompt([system, user, long], tools, new Set());
      const held = storedBodiesOf([user, long]);
      expect([...held.keys()]).toEqual(storedHashesOf([user, long]));
      for (const [hash, body] of held) expect(result.newBodies[hash]).toBe(body);
      // Counted as known, they are not stored again: only the system prompt is.
      const again = hashPrompt([system, user, long], tools, new Set(held.keys()));
      expect(Object.keys(again.newBodies)).toEqual([again.messageHashes[0]]);
      expect(restoreMessages(again.messageHashes, new Map([...held, ...Object.entries(again.newBodies)]))).toEqual([system, user, long]);
    });

    it('names the pieces of a long message body, and none of a short one', () => {
      const result = hashPrompt([{ role: 'system', content: promptWith('x') }, user], tools, new Set());
      const [systemHash, userHash] = result.messageHashes;
      expect(piecesNamedBy(result.newBodies[systemHash])).toHaveLength(5);
      expect(piecesNamedBy(result.newBodies[systemHash]).every((hash) => result.newBodies[hash] !== undefined)).toBe(true);
      expect(piecesNamedBy(result.newBodies[userHash])).toEqual([]);
    });
  });
});
