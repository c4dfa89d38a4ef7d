import type { ChatMessage, ToolSpec } from '@stagecraft/contracts';
import { hashPrompt, messageBody } from './hash-prompt';

const system: ChatMessage = { role: 'system', content: 'You are the agent.' };
const user: ChatMessage = { role: 'user', content: 'Add a README.' };
const tools: ToolSpec[] = [{ name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];

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

  it('estimates tokens as characters over four, rounded up', () => {
    const result = hashPrompt([user], [], new Set());
    expect(result.tokenEstimate).toBe(Math.ceil((messageBody(user).length + '[]'.length) / 4));
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
});
