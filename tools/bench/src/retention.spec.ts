import { RecordedRequest } from '@stagecraft/scripted-model';
import { RetentionScenario, codeOf, plantedFacts, requestText, scoreRetention } from './retention';

const scenario: RetentionScenario = { turns: 3, roundsPerTurn: 2, lastTurnRounds: 5, plantedRounds: 2, fileBytes: 100 };

describe('the retention score', () => {
  it('plants one code per place, each different and none a part of another', () => {
    const facts = plantedFacts(scenario);
    // Goals of 3 turns, answers of the 2 before the last, one file and one plan delta in each earlier run, 2 of each in the last.
    expect(facts.map((f) => f.kind).sort()).toEqual(
      [
        ...Array(3).fill('goal'),
        ...Array(2).fill('answer'),
        ...Array(2).fill('earlier-tool'),
        ...Array(2).fill('earlier-decision'),
        'tool',
        'tool',
        'decision',
        'decision',
      ].sort(),
    );
    const codes = facts.map((f) => f.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(codes.filter((other) => other !== code && other.includes(code))).toEqual([]);
  });

  it('counts a fact kept when its code is anywhere in the text, over every kind, and reports each kind', () => {
    const facts = plantedFacts(scenario);
    const text = `summary: ${codeOf('goal', 1)} ${codeOf('goal', 2)}\nread: ${codeOf('tool', 3, 1)} ${codeOf('tool', 1, 1)}`;
    const score = scoreRetention(facts, text);
    expect(score.byKind.goal).toEqual({ kept: 2, total: 3 });
    expect(score.byKind.tool).toEqual({ kept: 1, total: 2 });
    expect(score.byKind['earlier-tool']).toEqual({ kept: 1, total: 2 });
    // goal 2/3 + answer 0/2 + decision 0/2 + tool 1/2 + earlier-decision 0/2 + earlier-tool 1/2.
    expect({ kept: score.kept, total: score.total }).toEqual({ kept: 4, total: 13 });
    expect(score.lost).toContain(codeOf('goal', 3));
    expect(score.lost).toContain(codeOf('decision', 1, 1));
    expect(score.lost).not.toContain(codeOf('tool', 1, 1));
    // The parts before digests (goal, answer, decision, tool) can still be scored alone.
    expect(scoreRetention(facts, text, ['goal', 'answer', 'decision', 'tool'])).toMatchObject({ kept: 3, total: 9 });
  });

  it('reads what the model is sent: every message’s text and its tool calls’ arguments', () => {
    const request = {
      index: 0,
      method: 'POST',
      path: '/chat/completions',
      headers: {},
      body: {
        messages: [
          { role: 'system', content: 'base' },
          { role: 'assistant', content: null, tool_calls: [{ function: { name: 'read_file', arguments: '{"path":"x-code"}' } }] },
          { role: 'tool', content: 'tool-code' },
        ],
      },
    } as RecordedRequest;
    const text = requestText(request);
    expect(text).toContain('x-code');
    expect(text).toContain('tool-code');
    expect(text).toContain('base');
  });
});
