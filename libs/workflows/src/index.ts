/** Workflows: seed-004 step definitions, the workflow decider over `workflow-<id>` by concern, and its agents' upstream context. */
export * from './steps';
export * from './orchestration';
export { mergeCase, CONFLICT_REASONS } from './three-way';
export type { FileVersions, MergeCase, ConflictReason } from './three-way';
export { upstreamContextContributor, renderUpstream } from './upstream/upstream-context';
export { previousAttemptContributor, renderPreviousAttempt } from './upstream/previous-attempt';
export { describeUpstream, upstreamId } from './upstream/describe-upstream';
