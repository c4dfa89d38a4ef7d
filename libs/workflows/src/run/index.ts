export * from './state';
export * from './inputs';
export { decideWorkflow } from './decide';
export { evolveWorkflow, foldWorkflow, type WorkflowPendingEvent } from './evolve';
export { workflowEffects, type WorkflowEffect } from './effects';
export { workflowView } from './view';
export { worktreesOf } from './worktrees';
export { parseAgentDocument, extractJson, DOCUMENT_SCHEMAS } from './documents';
export { upstreamFor } from './upstream';
