import { Instruction } from '@stagecraft/contracts';
import { instructionXmlLine, serializeInstructionContent } from './instructions';

const delegate = (agentPrompt: string): Instruction => ({ kind: 'DelegateReasoning', agentType: 'specialist', agentPrompt, markIntermediate: true });

describe('instruction lines (seed 000)', () => {
  it('shows a delegation by its size only', () => {
    const prompt = 'You are a code architecture analyst.\n'.repeat(80);
    expect(instructionXmlLine(delegate(prompt))).toBe(`<delegate-reasoning>Specialist active (${prompt.length} chars)</delegate-reasoning>`);
    expect(instructionXmlLine(delegate(prompt))).not.toContain('analyst');
  });

  it('gives the fixed lines for return and intermediate', () => {
    expect(instructionXmlLine({ kind: 'ReturnControl' })).toBe('<return-control>Returning to main agent</return-control>');
    expect(instructionXmlLine({ kind: 'ReturnControl', result: 'done' })).toBe('<return-control>Returning to main agent</return-control>');
    expect(instructionXmlLine({ kind: 'IntermediateReasoning' })).toBe('<intermediate>Internal reasoning</intermediate>');
  });
});

describe('instruction content (seed 000)', () => {
  it('keeps length and the first 200 characters of a delegation', () => {
    const prompt = 'a'.repeat(150) + 'b'.repeat(100);
    expect(serializeInstructionContent(delegate(prompt))).toBe(`delegate_reasoning:250:${'a'.repeat(150)}${'b'.repeat(50)}`);
    expect(serializeInstructionContent(delegate('short'))).toBe('delegate_reasoning:5:short');
  });

  it('counts UTF-16 code units, as the seed does', () => {
    expect(serializeInstructionContent(delegate('é🙂'))).toBe('delegate_reasoning:3:é🙂');
  });

  it('gives the fixed words for return and intermediate', () => {
    expect(serializeInstructionContent({ kind: 'ReturnControl' })).toBe('return_control');
    expect(serializeInstructionContent({ kind: 'IntermediateReasoning' })).toBe('intermediate');
  });

  it('rejects a kind it does not know', () => {
    expect(() => instructionXmlLine({ kind: 'Rewrite' } as unknown as Instruction)).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  });
});
