import type { WorkflowNextReply, WorkflowNextRequest } from '@stagecraft/contracts';
import { nextWorkflowStep } from '@stagecraft/workflows';
import type { PromptAssembly } from '../dependencies';

/** `workflow.next`: the step a step workflow (seed 004) takes after the ones already done. */
export const nextStep = (request: WorkflowNextRequest, { workflows }: PromptAssembly): WorkflowNextReply =>
  nextWorkflowStep(workflows, request);
