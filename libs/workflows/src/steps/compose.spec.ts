import { WorkflowStep } from '@stagecraft/contracts';
import { composeStepPrompt } from './compose';

/** Seed 004's "Current Processing", as it was before agentRole existed. */
function composedBeforeAgentRole(nextStep: WorkflowStep): string {
  let stepGuidance = '';
  if (nextStep.guidance && nextStep.guidance.length > 0) {
    const guidanceHeader = '## Step Guidance';
    const guidanceList = nextStep.guidance.map((g: string) => `- ${g}`).join('\n');
    stepGuidance = `${guidanceHeader}\n${guidanceList}\n\n`;
  }
  return `${stepGuidance}${nextStep.prompt}`;
}

describe('composeStepPrompt (seed 004)', () => {
  it("gives the seed's example output byte for byte", () => {
    const step = {
      id: 'example-step',
      title: 'Example Step',
      prompt: 'User-facing instructions...',
      agentRole: 'Agent behavioral instructions...',
      guidance: ['Tactical hint 1', 'Tactical hint 2'],
    };
    expect(composeStepPrompt(step)).toBe(
      '## Agent Role\nAgent behavioral instructions...\n\n## Step Guidance\n- Tactical hint 1\n- Tactical hint 2\n\nUser-facing instructions...',
    );
  });

  it('puts the role block before the prompt when there is no guidance', () => {
    expect(composeStepPrompt({ id: 's', title: 'S', prompt: 'Review the code.', agentRole: 'Act as a code reviewer.', guidance: [] })).toBe(
      '## Agent Role\nAct as a code reviewer.\n\nReview the code.',
    );
  });

  it.each<[string, WorkflowStep]>([
    ['prompt only', { id: 's', title: 'S', prompt: 'Describe the feature.' }],
    ['empty guidance', { id: 's', title: 'S', prompt: 'Describe the feature.', guidance: [] }],
    ['one hint', { id: 's', title: 'S', prompt: 'Describe the feature.', guidance: ['Be brief'] }],
    [
      'several hints and a multi-line prompt',
      { id: 's', title: 'S', prompt: 'Line one.\n\nLine two.', guidance: ['a', 'b - c', '`code`'] },
    ],
  ])('composes a step without agentRole exactly as before (%s)', (_what, step) => {
    expect(composeStepPrompt(step)).toBe(composedBeforeAgentRole(step));
  });
});
