import { StagecraftError, WorkflowStep, WorkflowStepsSnapshot } from '@stagecraft/contracts';
import type { Requester } from '@stagecraft/messaging';

/** Seed-004 workflows are short; a longer one is refused rather than walked forever. */
const MAX_STEPS = 100;

/** Seed 004: the steps as `workflow.next` serves them, walked once, so the workflow keeps the definition it started with. */
export async function stepsOf(requester: Requester, definitionId: string): Promise<WorkflowStepsSnapshot> {
  const steps: WorkflowStep[] = [];
  for (;;) {
    const reply = await requester.request('workflow.next', {
      workflowId: definitionId,
      completedSteps: steps.map((s) => s.id),
    });
    if (reply.isComplete || reply.step === null) break;
    steps.push(reply.step);
    if (steps.length > MAX_STEPS) throw new StagecraftError('LIMIT_EXCEEDED', `workflow ${definitionId} has more than ${MAX_STEPS} steps`);
  }
  if (steps.length === 0) throw new StagecraftError('VALIDATION', `workflow ${definitionId} has no steps`);
  return { definitionId, name: definitionId, steps };
}
