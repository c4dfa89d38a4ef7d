import { z } from 'zod';
import { Id, NonBlank } from './common';
import { Usage } from './qa';

/** Events `from`..`to` (stream revisions, both included) of one stream: where part of a summary came from. */
export const EventRange = z.object({ stream: NonBlank, from: z.number().int().min(0), to: z.number().int().min(0) });
export type EventRange = z.infer<typeof EventRange>;

/**
 * One part of a summary: short items, and the events they were taken from. `origins` (summaries of
 * version 2) says where each item came from, in the order of `items`; null for an item carried over
 * from a summary that did not say.
 */
export const SummarySection = z
  .object({ items: z.array(z.string()), sources: z.array(EventRange), origins: z.array(EventRange.nullable()).optional() })
  .refine((s) => s.origins === undefined || s.origins.length === s.items.length, {
    message: 'origins must give one range (or null) per item',
    path: ['origins'],
  });
export type SummarySection = z.infer<typeof SummarySection>;

/** Seed 002 §7.2: what older turns come down to. Never carries `<ide_reasoning>`. */
export const HistorySummary = z.object({
  goals: SummarySection,
  decisions: SummarySection,
  currentPlan: SummarySection,
  openIssues: SummarySection,
  toolOutputs: SummarySection,
});
export type HistorySummary = z.infer<typeof HistorySummary>;
/** Bound on a stored digest's items, per section: twice what a run writes (docs/decisions/0053). */
export const DIGEST_MAX_CHARS = 4_000;

/**
 * What a completed run did, beyond its goal and answer (which its turn already holds): its decisions,
 * open issues and important tool outputs, each item citing the run's events. Extractive and bounded;
 * stored once with the turn's answer on `conversation-<id>` so that later turns carry it.
 */
export const RunDigest = z
  .object({ decisions: SummarySection, openIssues: SummarySection, toolOutputs: SummarySection })
  // Written within 2,000 characters of text; a stored one far past that was not written by a run, and is not sent on.
  .refine((d) => [d.decisions, d.openIssues, d.toolOutputs].every((s) => s.items.join('').length <= DIGEST_MAX_CHARS), {
    message: `a digest's items hold at most ${DIGEST_MAX_CHARS} characters a section`,
  });
export type RunDigest = z.infer<typeof RunDigest>;
export const DIGEST_SECTIONS = ['decisions', 'openIssues', 'toolOutputs'] as const;

export const SUMMARY_SECTIONS = ['goals', 'decisions', 'currentPlan', 'openIssues', 'toolOutputs'] as const;
export type SummarySectionName = (typeof SUMMARY_SECTIONS)[number];

export const CompactionMethod = z.enum(['extractive', 'model']);
export type CompactionMethod = z.infer<typeof CompactionMethod>;

/** When history is compacted, and how. Token counts are estimates (about four characters a token). */
export const CompactionSettings = z.object({
  method: CompactionMethod,
  /** More messages than this after the system prompt compacts the older ones. */
  maxMessages: z.number().int().min(4),
  /** More estimated tokens than this after the system prompt compacts the older messages. */
  maxTokens: z.number().int().min(256),
  /** About this many tokens of the latest messages stay verbatim after a compaction. */
  keepRecentTokens: z.number().int().min(0),
  /**
   * How the extractive summary keeps items. Absent (every log from before it) or 1: the first goals and
   * the latest of the rest, by count. 2: every turn's goal and answer, the rest by importance under a
   * size budget, each item citing its events. Recorded so that a replay re-decides with the same rule.
   */
  summaryVersion: z.union([z.literal(1), z.literal(2)]).optional(),
});
export type CompactionSettings = z.infer<typeof CompactionSettings>;

/** The numbers that fired the trigger, next to the thresholds they crossed. */
export const CompactionTrigger = z.object({
  messageCount: z.number().int().min(0),
  tokenEstimate: z.number().int().min(0),
  maxMessages: z.number().int().min(0),
  maxTokens: z.number().int().min(0),
});
export type CompactionTrigger = z.infer<typeof CompactionTrigger>;

/** The model call a `model` compaction made: logged like the run's own calls. */
export const CompactionModelCall = z.object({
  requestId: NonBlank,
  model: z.string(),
  promptHash: z.string(),
  messageCount: z.number().int().min(0),
  tokenEstimate: z.number().int().min(0),
  latencyMs: z.number().min(0),
  usage: Usage.optional(),
  finishReason: z.string().nullable(),
});
export type CompactionModelCall = z.infer<typeof CompactionModelCall>;

/**
 * Older messages replaced by a structured summary. On `run-<id>` the run compacted what its next
 * request would carry (earlier turns and its own messages); on `conversation-<id>` the conversation
 * compacted its turns. `replaced` counts the leading messages (after any earlier summary, which this
 * one folds in) that the summary stands for, so a fold of the same log always gives the same request.
 */
export const HistoryCompacted = z.object({
  compactionId: Id,
  method: CompactionMethod,
  trigger: CompactionTrigger,
  replaced: z.number().int().min(1),
  /** Every range of events the summary was made from. */
  covers: z.array(EventRange),
  summary: HistorySummary,
  /** Estimated tokens of the request's messages before and after (summary + recent window). */
  tokensBefore: z.number().int().min(0),
  tokensAfter: z.number().int().min(0),
  modelCall: CompactionModelCall.optional(),
});
export type HistoryCompacted = z.infer<typeof HistoryCompacted>;
