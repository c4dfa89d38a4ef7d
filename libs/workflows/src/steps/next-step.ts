import { StagecraftError, WorkflowNextReply, WorkflowNextRequest } from '@stagecraft/contracts';
import { WorkflowCatalog } from './catalog';
import { composeStepPrompt } from './compose';

/** Seed 004's `workflow_next`: the first step, in definition order, that is not among the completed ones. */
export function nextWorkflowStep(catalog: WorkflowCatalog, request: WorkflowNextRequest): WorkflowNextReply {
  const workflow = catalog.get(request.workflowId);
  const known = new Set(workflow.steps.map((s) => s.id));
  const unknown = request.completedSteps.flatMap((id, index) =>
    known.has(id) ? [] : [{ path: ['completedSteps', index], message: `"${id}" is not a step of "${workflow.id}"` }],
  );
  if (unknown.length > 0)
    throw new StagecraftError('VALIDATION', `completedSteps names steps that workflow "${workflow.id}" does not have`, unknown);

  const done = new Set(request.completedSteps);
  const step = workflow.steps.find((s) => !done.has(s.id));
  if (step === undefined) {
    return {
      step: null,
      guidance: { prompt: `Workflow "${workflow.name}" is complete: all ${workflow.steps.length} steps are done.` },
      isComplete: true,
    };
  }
  return { step, guidance: { prompt: composeStepPrompt(step) }, isComplete: false };
}
