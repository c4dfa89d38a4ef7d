import { WorkflowDefinition } from '@stagecraft/contracts';
import { createWorkflowCatalog } from './catalog';
import { nextWorkflowStep } from './next-step';

const workflow: WorkflowDefinition = {
  id: 'review',
  name: 'Review',
  description: 'Reviews a change.',
  version: '1.0.0',
  steps: [
    {
      id: 'scope',
      title: 'Scope',
      prompt: 'Tell us what to review.',
      agentRole: 'Act as a senior reviewer.',
      guidance: ['List the changed files'],
    },
    { id: 'findings', title: 'Findings', prompt: 'Review the findings.' },
    { id: 'summary', title: 'Summary', prompt: 'Confirm the summary.', agentRole: 'Act as a constructive reviewer.' },
  ],
};
const catalog = createWorkflowCatalog([workflow]);

describe('nextWorkflowStep', () => {
  it('starts with the first step, its prompt composed for the model', () => {
    expect(nextWorkflowStep(catalog, { workflowId: 'review', completedSteps: [] })).toEqual({
      step: workflow.steps[0],
      guidance: {
        prompt: '## Agent Role\nAct as a senior reviewer.\n\n## Step Guidance\n- List the changed files\n\nTell us what to review.',
      },
      isComplete: false,
    });
  });

  it('gives the first step not yet done, in definition order', () => {
    expect(nextWorkflowStep(catalog, { workflowId: 'review', completedSteps: ['scope'] }).step?.id).toBe('findings');
    expect(nextWorkflowStep(catalog, { workflowId: 'review', completedSteps: ['findings'] }).step?.id).toBe('scope');
    expect(nextWorkflowStep(catalog, { workflowId: 'review', completedSteps: ['summary', 'scope', 'scope'] }).step?.id).toBe('findings');
  });

  it('keeps the role out of what the user sees: the step title and prompt', () => {
    for (const step of workflow.steps) {
      const reply = nextWorkflowStep(catalog, {
        workflowId: 'review',
        completedSteps: workflow.steps.slice(0, workflow.steps.indexOf(step)).map((s) => s.id),
      });
      expect(reply.step?.prompt).toBe(step.prompt);
      if (step.agentRole) {
        expect(`${reply.step?.title}\n${reply.step?.prompt}`).not.toContain(step.agentRole);
        expect(reply.guidance.prompt).toContain(step.agentRole);
      }
    }
  });

  it('is complete once every step is done', () => {
    expect(nextWorkflowStep(catalog, { workflowId: 'review', completedSteps: ['summary', 'findings', 'scope'] })).toEqual({
      step: null,
      guidance: { prompt: 'Workflow "Review" is complete: all 3 steps are done.' },
      isComplete: true,
    });
  });

  it('answers NOT_FOUND for an unknown workflow', () => {
    expect(() => nextWorkflowStep(catalog, { workflowId: 'deploy', completedSteps: [] })).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: 'no workflow with id "deploy"' }),
    );
  });

  it('answers VALIDATION, naming each one, for completed steps the workflow does not have', () => {
    expect(() => nextWorkflowStep(catalog, { workflowId: 'review', completedSteps: ['scope', 'deploy', 'ship'] })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION',
        issues: [
          { path: ['completedSteps', 1], message: '"deploy" is not a step of "review"' },
          { path: ['completedSteps', 2], message: '"ship" is not a step of "review"' },
        ],
      }),
    );
  });

  it('refuses two workflows with one id', () => {
    expect(() => createWorkflowCatalog([workflow, workflow])).toThrow(
      expect.objectContaining({ code: 'VALIDATION', message: 'workflow "review" is defined twice' }),
    );
  });
});
