export { composeStepPrompt } from './compose';
export { createWorkflowCatalog } from './catalog';
export type { WorkflowCatalog } from './catalog';
export { nextWorkflowStep } from './next-step';
export { loadWorkflowDirectory, parseWorkflowFile } from './load';
export * from './run';
export { mergeCase, CONFLICT_REASONS } from './three-way';
export type { FileVersions, MergeCase, ConflictReason } from './three-way';
