import { loadPromptAssembly } from '../dependencies';
import { nextStep } from './next-step.handler';

describe('workflow.next', () => {
  const deps = loadPromptAssembly({});

  it('walks a shipped workflow step by step until it is complete', () => {
    const done: string[] = [];
    for (let guard = 0; guard < 50; guard++) {
      const reply = nextStep({ workflowId: 'code-review', completedSteps: done }, deps);
      if (reply.isComplete || reply.step === null) break;
      expect(done).not.toContain(reply.step.id);
      done.push(reply.step.id);
    }
    expect(done[0]).toBe('review-scope');
    expect(nextStep({ workflowId: 'code-review', completedSteps: done }, deps).isComplete).toBe(true);
  });

  it('refuses a workflow it does not know with NOT_FOUND', () => {
    expect(() => nextStep({ workflowId: 'no-such-workflow', completedSteps: [] }, deps)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
  });
});
