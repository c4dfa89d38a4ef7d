import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findPromptViolations } from '@stagecraft/prompts';
import { loadWorkflowDirectory } from './load';
import { nextWorkflowStep } from './next-step';

const root = join(__dirname, '..', '..', '..', '..');
const dir = join(root, 'workflows');
const catalog = loadWorkflowDirectory(dir);

describe('the workflows shipped in workflows/', () => {
  it('include feature specification and code review, and all load', () => {
    expect(catalog.ids()).toEqual(['code-review', 'feature-specification']);
  });

  it('point their $schema at the committed JSON Schema', () => {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const { $schema } = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { $schema: string };
      expect({ file, $schema }).toEqual({ file, $schema: '../contracts/workflows/WorkflowDefinition.schema.json' });
      expect(readFileSync(join(dir, $schema), 'utf8')).toContain('"$id": "stagecraft/workflows/WorkflowDefinition.schema.json"');
    }
  });

  it('give every step a role and guidance, keep the role out of the user-facing text, and pass the prompt guard', () => {
    for (const id of catalog.ids()) {
      const workflow = catalog.get(id);
      expect(workflow.steps.length).toBeGreaterThanOrEqual(4);
      const completed: string[] = [];
      for (const step of workflow.steps) {
        const reply = nextWorkflowStep(catalog, { workflowId: id, completedSteps: completed });
        expect(reply.step).toEqual(step);
        expect(step.agentRole).toBeDefined();
        expect(step.guidance?.length).toBeGreaterThanOrEqual(2);
        expect(`${step.title}\n${step.prompt}`).not.toContain(step.agentRole);
        expect(reply.guidance.prompt.startsWith(`## Agent Role\n${step.agentRole}\n\n## Step Guidance\n- `)).toBe(true);
        expect(reply.guidance.prompt.endsWith(`\n\n${step.prompt}`)).toBe(true);
        expect({ id, step: step.id, violations: findPromptViolations(reply.guidance.prompt) }).toEqual({
          id,
          step: step.id,
          violations: [],
        });
        completed.push(step.id);
      }
      expect(nextWorkflowStep(catalog, { workflowId: id, completedSteps: completed }).isComplete).toBe(true);
    }
  });
});
