import { jsonSchemaFiles } from './json-schemas';
import { WorkflowNextReply, WorkflowNextRequest } from './prompts';
import { WorkflowDefinition, WorkflowStep } from './workflows';

const step = { id: 'gather', title: 'Gather requirements', prompt: 'Describe the feature you need.' };
const workflow = { id: 'spec', name: 'Specification', description: 'Writes a specification.', version: '1.0.0', steps: [step] };
const messages = (result: { error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) => result.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

describe('workflow step schema (seed 004)', () => {
  it('takes agentRole as optional, from 10 to 1,024 characters', () => {
    expect(WorkflowStep.safeParse(step).success).toBe(true);
    expect(WorkflowStep.safeParse({ ...step, agentRole: 'a'.repeat(10) }).success).toBe(true);
    expect(WorkflowStep.safeParse({ ...step, agentRole: 'a'.repeat(1_024) }).success).toBe(true);
    expect(messages(WorkflowStep.safeParse({ ...step, agentRole: 'a'.repeat(9) }))).toEqual(['agentRole: Too small: expected string to have >=10 characters']);
    expect(messages(WorkflowStep.safeParse({ ...step, agentRole: 'a'.repeat(1_025) }))).toEqual(['agentRole: Too big: expected string to have <=1024 characters']);
    expect(messages(WorkflowStep.safeParse({ ...step, agentRole: ' '.repeat(12) }))).toEqual(['agentRole: agentRole is blank']);
  });

  it('keeps agent instructions out of the user-facing prompt', () => {
    const agentRole = 'Act as a code reviewer and ask one question at a time.';
    expect(messages(WorkflowStep.safeParse({ ...step, agentRole, prompt: `${agentRole}\n\nPlease review the attached code.` }))).toEqual([
      'prompt: the prompt repeats the agentRole, which must never be shown to users',
    ]);
    expect(messages(WorkflowStep.safeParse({ ...step, prompt: "**Agent's Role:** Act as a code reviewer.\n\nPlease review the attached code." }))).toEqual([
      'prompt: agent instructions belong in agentRole, not in the user-facing prompt',
    ]);
    expect(messages(WorkflowStep.safeParse({ ...step, prompt: '## Agent Role\nBe terse.\n\nReview it.' }))).toHaveLength(1);
  });

  it('rejects unknown fields, so a misspelt agentRole is not silently ignored', () => {
    expect(messages(WorkflowStep.safeParse({ ...step, agentrole: 'Act as a reviewer.' }))).toEqual([': Unrecognized key: "agentrole"']);
  });

  it('requires unique step ids and at least one step', () => {
    expect(messages(WorkflowDefinition.safeParse({ ...workflow, steps: [step, { ...step, title: 'Again' }] }))).toEqual(['steps.1.id: step id "gather" is used twice']);
    expect(WorkflowDefinition.safeParse({ ...workflow, steps: [] }).success).toBe(false);
    expect(WorkflowDefinition.safeParse({ ...workflow, $schema: '../contracts/workflows/WorkflowDefinition.schema.json' }).success).toBe(true);
  });

  it('publishes the JSON Schema with the seed\'s agentRole addition', () => {
    const schema = jsonSchemaFiles()['workflows/WorkflowDefinition.schema.json'] as { properties: { steps: { items: { properties: Record<string, unknown>; additionalProperties: boolean } } } };
    expect(schema.properties.steps.items.properties['agentRole']).toEqual({
      type: 'string',
      description:
        'Optional behavioral instructions for AI agents defining how they should approach and execute this step. This content is not shown to users.',
      minLength: 10,
      maxLength: 1024,
    });
    expect(schema.properties.steps.items.additionalProperties).toBe(false);
  });
});

describe('workflow.next contract', () => {
  it('defaults completedSteps to none', () => {
    expect(WorkflowNextRequest.parse({ workflowId: 'spec' })).toEqual({ workflowId: 'spec', completedSteps: [] });
  });

  it('replies with the step object, or null once complete', () => {
    expect(WorkflowNextReply.safeParse({ step, guidance: { prompt: step.prompt }, isComplete: false }).success).toBe(true);
    expect(WorkflowNextReply.safeParse({ step: null, guidance: { prompt: 'done' }, isComplete: true }).success).toBe(true);
    expect(WorkflowNextReply.safeParse({ step: 0, guidance: { prompt: 'x' }, isComplete: false }).success).toBe(false);
  });
});
