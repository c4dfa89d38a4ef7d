export { DEFAULT_COMPACTION, WINDOW_ONLY_COMPACTION, compactionTrigger, estimateTokens, recentWindowStart, tokensOf } from './settings';
export { rangesOf } from './sources';
export {
  DIGEST_CHARS,
  EMPTY_SUMMARY,
  clip,
  extractiveSummary,
  parseSummary,
  renderDigest,
  renderSummary,
  runDigest,
  summaryMessage,
  transcriptOf,
} from './summary';
export { compactionEvent, planCompaction, withSummary } from './plan';
export type { CompactionPlan } from './plan';
export { compactIfDue, currentSummary, pendingMessages, requestConversation } from './compact-if-due';
