import { ChatMessage, ToolSpec, canonicalJson } from '@stagecraft/contracts';
import fc from 'fast-check';
import { answerReserve, conversationBudget, requestOverWindow, requestTokens, windowReserve } from './window';

const tool: ToolSpec = { name: 'read_file', description: 'Reads a file.', parameters: { type: 'object', properties: {} } };
const text = (chars: number): ChatMessage => ({ role: 'user', content: 'x'.repeat(chars) });

describe('the run’s context window', () => {
  it('counts a request as its record does: content, tool calls and tool definitions, about four characters a token', () => {
    const call: ChatMessage = { role: 'assistant', content: 'ok', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] };
    const chars = 400 + 2 + canonicalJson(call.toolCalls).length + canonicalJson([tool]).length;
    expect(requestTokens([text(400), call], [tool])).toBe(Math.ceil(chars / 4));
  });

  it('estimates exactly what the canonical JSON of the tool definitions and calls gave, whatever their key order', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), fc.string(), (values, content) => {
        const tools = values.map((parameters, i) => ({ name: `tool_${i}`, description: content, parameters })) as unknown as ToolSpec[];
        const toolCalls = values.map((v, i) => ({ id: `c${i}`, name: 'read_file', arguments: JSON.stringify(v) ?? 'null' }));
        const message = { role: 'assistant', content, toolCalls } as unknown as ChatMessage;
        const chars = content.length + canonicalJson(toolCalls).length + canonicalJson(tools).length;
        expect(requestTokens([message], tools)).toBe(Math.ceil(chars / 4));
      }),
    );
  });

  it('leaves the conversation the window less a reserve for the fixed parts and the answer; no recorded window, no bound', () => {
    expect(conversationBudget({ contextWindow: 128_000 })).toBe(128_000 - 12_000);
    expect(conversationBudget({ contextWindow: 8_192 })).toBe(4_096);
    expect(conversationBudget({})).toBe(Infinity);
    expect(conversationBudget(undefined)).toBe(Infinity);
    expect(windowReserve(32_000)).toBeGreaterThan(answerReserve(32_000));
  });

  it('lets a request through up to the window less the answer’s room, and refuses one token more, saying why', () => {
    const limits = { contextWindow: 32_000 };
    const room = 32_000 - answerReserve(32_000);
    const tools = canonicalJson([tool]).length;
    const fits = [text(room * 4 - tools)];
    expect(requestTokens(fits, [tool])).toBe(room);
    expect(requestOverWindow(limits, fits, [tool])).toEqual([]);
    const [problem, ...more] = requestOverWindow(limits, [text(room * 4 - tools + 1)], [tool]);
    expect(more).toEqual([]);
    expect(problem).toMatch(/^context window: the request would carry about 28,001 tokens in 1 messages and 1 tool definitions/);
    expect(problem).toContain("run's window of 32,000");
  });

  it('never refuses a request of a run that recorded no window (older logs)', () => {
    expect(requestOverWindow(undefined, [text(4_000_000)], [tool])).toEqual([]);
    expect(requestOverWindow({}, [text(4_000_000)], [tool])).toEqual([]);
  });
});
