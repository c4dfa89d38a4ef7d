import { DelegateReasoning, Instruction, IntermediateReasoning, ReturnControl } from './instructions';

const brief = 'You are a code architecture analyst.\nAnalyze the codebase structure and identify patterns.';

describe('instruction schemas (seed 000)', () => {
  it('defaults markIntermediate to true, and keeps an explicit false', () => {
    expect(Instruction.parse({ kind: 'DelegateReasoning', agentPrompt: brief })).toEqual({ kind: 'DelegateReasoning', agentType: 'specialist', agentPrompt: brief, markIntermediate: true });
    expect(DelegateReasoning.parse({ kind: 'DelegateReasoning', agentPrompt: brief, markIntermediate: false }).markIntermediate).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['spaces', '   '],
    ['newlines and tabs', '\n\t\n'],
  ])('rejects a blank agent prompt (%s)', (_what, agentPrompt) => {
    const result = Instruction.safeParse({ kind: 'DelegateReasoning', agentPrompt });
    expect(result.error?.issues.map((i) => i.message)).toEqual(['Agent prompt cannot be blank']);
  });

  it('accepts 50,000 characters and rejects 50,001', () => {
    expect(Instruction.safeParse({ kind: 'DelegateReasoning', agentPrompt: 'a'.repeat(50_000) }).success).toBe(true);
    const result = Instruction.safeParse({ kind: 'DelegateReasoning', agentPrompt: 'a'.repeat(50_001) });
    expect(result.error?.issues.map((i) => i.message)).toEqual(['Agent prompt too long (max 50,000 chars)']);
  });

  it('keeps the full prompt through a JSON round trip', () => {
    const instructions: Instruction[] = [
      Instruction.parse({ kind: 'DelegateReasoning', agentPrompt: `${brief}\n${'x'.repeat(3_000)}` }),
      Instruction.parse({ kind: 'IntermediateReasoning' }),
      Instruction.parse({ kind: 'ReturnControl' }),
    ];
    const restored = JSON.parse(JSON.stringify(instructions)).map((i: unknown) => Instruction.parse(i));
    expect(restored).toEqual(instructions);
    expect((restored[0] as DelegateReasoning).agentPrompt).toHaveLength(brief.length + 3_001);
  });

  it('serializes the two markers as objects with nothing but their kind', () => {
    expect(JSON.stringify(IntermediateReasoning.parse({ kind: 'IntermediateReasoning', extra: 1 }))).toBe('{"kind":"IntermediateReasoning"}');
    expect(JSON.stringify(ReturnControl.parse({ kind: 'ReturnControl' }))).toBe('{"kind":"ReturnControl"}');
  });

  it('rejects an unknown kind', () => {
    expect(Instruction.safeParse({ kind: 'Rewrite' }).success).toBe(false);
  });
});
