import { WorkflowStartRequest } from '@stagecraft/contracts';
import { workflowView } from './view';
import { Given, types } from './workflow.testing';

describe('a workflow of seed-004 steps', () => {
  it('walks the steps of a workflow definition, each step building on the answers before it', () => {
    const g = new Given();
    const steps = [
      { id: 'one', title: 'One', prompt: 'Do one.', agentRole: 'Act as a careful analyst.', guidance: ['be brief'] },
      { id: 'two', title: 'Two', prompt: 'Do two.' },
    ];
    g.when({
      type: 'WorkflowRequested',
      workflowId: 'wf',
      request: WorkflowStartRequest.parse({ goal: 'Review', projectRoot: '/p', workflow: 'review' }),
      projectRoot: '/p',
      isolation: 'copy',
      steps: { definitionId: 'review', name: 'review', steps },
    });
    const first = g.open()[0];
    expect(first.assignedGoal).toBe('## Agent Role\nAct as a careful analyst.\n\n## Step Guidance\n- be brief\n\nDo one.\n\nGoal: Review');
    g.finish('workflow-step', 'first answer');
    expect(g.open()[0].upstream).toEqual([
      { kind: 'result', resultId: first.contextId, agentType: 'workflow-step', output: 'first answer' },
    ]);
    expect(types(g.finish('workflow-step', 'second answer'))).toEqual(['AgentReturned', 'WorkflowCompleted']);
    expect(workflowView(g.s).summary).toBe('second answer');
  });
});
