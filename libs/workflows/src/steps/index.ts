export { composeStepPrompt } from './compose';
export { createWorkflowCatalog, type WorkflowCatalog } from './catalog';
export { nextWorkflowStep } from './next-step';
export { loadWorkflowDirectory, parseWorkflowFile } from './load';
