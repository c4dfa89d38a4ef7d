/** An OpenAI-compatible server on loopback that answers from a script and records every request: the model of the demo and the tests. */
export * from './script';
export { startScriptedModelServer } from './server';
export { ScriptExhaustedError } from './script-cursor';
export { embeddingVector, DEFAULT_EMBEDDING_DIMENSIONS } from './embeddings';
export { demoScript } from './demo/demo-script';
export { workflowScript } from './workflow/workflow-script';
export type { WorkflowScriptOptions } from './workflow/workflow-script';
export type { ScriptedDecision } from './workflow/documents';
export { WORKFLOW_ROLE_LINE } from './workflow/read-workflow-request';
