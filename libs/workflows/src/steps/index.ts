export { composeStepPrompt } from './compose';
export { createWorkflowCatalog, type SkippedWorkflow, type WorkflowCatalog } from './catalog';
export { nextWorkflowStep } from './next-step';
export { loadWorkflowDirectory, parseWorkflowFile } from './load';
