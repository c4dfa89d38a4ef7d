export { DEFAULT_COMPACTION, compactionTrigger, estimateTokens, recentWindowStart, tokensOf } from './settings';
export { rangesOf } from './sources';
export type { EventRef } from './sources';
export { EMPTY_SUMMARY, clip, extractiveSummary, parseSummary, renderSummary, summaryMessage, transcriptOf } from './summary';
export type { SourcedMessage, SourcedOutcome } from './summary';
export { compactionEvent, planCompaction, withSummary } from './plan';
export type { CompactionPlan } from './plan';
