import { z } from 'zod';
import { CancelledBy, ConversationId, DeliveryState, IsoTimestamp, RunId, RunLimitName, Stage, UserMode } from './common';
import { PendingApproval } from './approvals';
import { RunStatus } from './conversation';
import { ErrorCode } from './errors';
import { LogPosition } from './memory';
import { QAReport, Usage } from './qa';

/** A run's cancellation as the runs view keeps it. */
export const RunCancellation = z.object({ by: CancelledBy, reason: z.string() });
export type RunCancellation = z.infer<typeof RunCancellation>;

/**
 * `run.cancel`: stop a run. `reason` is free text for people (bounded, never read by the model).
 * An unknown field is refused rather than ignored.
 */
export const RunCancelRequest = z.strictObject({
  runId: RunId,
  by: CancelledBy,
  reason: z.string().trim().max(500).default(''),
});
export type RunCancelRequest = z.infer<typeof RunCancelRequest>;
/** `cancelled`: this request cancelled it; `ended`: it had ended already (`status` says how), and nothing was appended. */
export const RunCancelReply = z.object({
  runId: RunId,
  outcome: z.enum(['cancelled', 'ended']),
  status: RunStatus,
});
export type RunCancelReply = z.infer<typeof RunCancelReply>;

/** What a run's model calls used, per model (`qa` for reviewer calls logged before their model was recorded). */
export const TokensByModel = z.record(z.string(), Usage);
export type TokensByModel = z.infer<typeof TokensByModel>;

/**
 * One model's price in US dollars per million tokens. `cachedPromptPerMTok`: for prompt tokens the provider
 * served from its cache; when absent they are priced at `promptPerMTok`.
 */
export const ModelPrice = z.strictObject({
  promptPerMTok: z.number().min(0),
  cachedPromptPerMTok: z.number().min(0).optional(),
  completionPerMTok: z.number().min(0),
});
export type ModelPrice = z.infer<typeof ModelPrice>;
/** Prices by model name: `STAGECRAFT_PRICES`. */
export const PriceTable = z.record(z.string().min(1), ModelPrice);
export type PriceTable = z.infer<typeof PriceTable>;

/** What a run's tokens cost at today's prices; `priced` is false when a model it used has no price (its tokens count as 0). */
export const RunCost = z.object({ amount: z.number().min(0), currency: z.literal('USD'), priced: z.boolean() });
export type RunCost = z.infer<typeof RunCost>;

/** One run as the runs view keeps it, folded from its stream. */
export const RunRecord = z.object({
  runId: RunId,
  conversationId: ConversationId,
  userMode: UserMode,
  reasoningEnabled: z.boolean(),
  status: RunStatus,
  /** The stage it entered last. */
  stage: Stage.nullable(),
  startedAt: IsoTimestamp,
  /** When its latest event occurred. */
  updatedAt: IsoTimestamp,
  endedAt: IsoTimestamp.nullable(),
  /** The run's own model calls, its history compactions' and its reviewer's. */
  modelCalls: z.number().int().min(0),
  tokens: TokensByModel,
  /** How many times the run compacted its history (`HistoryCompacted`): each starts a new prompt prefix. Absent when it never did. */
  compactions: z.number().int().min(1).optional(),
  /** Once `DONE`, never turned back. */
  deliveryState: DeliveryState.nullable(),
  qaVerdict: QAReport.shape.verdict.nullable(),
  failure: z.object({ code: ErrorCode, reason: z.string() }).nullable(),
  /** The bound that ended a completed run short of `DONE` (`RunCompleted.limit`), when one did. */
  limit: RunLimitName.optional(),
  /** Why a completed run ended `NEEDS_WORK` (`RunCompleted.cause`), in runs that record it. */
  cause: z.string().optional(),
  /** Who cancelled the run and why, when it was cancelled (absent or null otherwise). */
  cancellation: RunCancellation.nullable().optional(),
  /** The workflow whose agent the run is; absent for a person's run. */
  workflowId: RunId.optional(),
  /** The tool call a running run waits on a person's approval for; absent when it waits for nothing. */
  pendingApproval: PendingApproval.optional(),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** A run as `runs.list` and `runs.get` answer it: the record, its cost at the configured prices, and whether it is stuck. */
export const RunSummary = RunRecord.extend({
  cost: RunCost,
  /** Started, not ended, and idle for longer than the service's threshold (`STAGECRAFT_STUCK_AFTER_MS`). */
  stuck: z.boolean(),
  /**
   * `stagecraft runs resume` takes it on to its end from any process: started, not ended and waiting for
   * no person (followed when another process drives it already), or a person's run that was cancelled.
   */
  resumable: z.boolean(),
});
export type RunSummary = z.infer<typeof RunSummary>;

/**
 * Newest first (in the order the runs started). `stuck`: true for stuck runs only, false for the
 * others. Every filter is optional, so an unknown field is refused rather than read as "no filter".
 */
export const RunsListRequest = z.strictObject({
  status: RunStatus.optional(),
  conversationId: ConversationId.optional(),
  /** Only runs in this project root (as `RunStarted.projectRoot` names it). */
  projectRoot: z.string().min(1).max(4096).optional(),
  stuck: z.boolean().optional(),
  limit: z.number().int().min(1).max(500).default(50),
  minPosition: LogPosition.optional(),
});
export type RunsListRequest = z.infer<typeof RunsListRequest>;
export const RunsListReply = z.object({ runs: z.array(RunSummary), position: LogPosition });
export type RunsListReply = z.infer<typeof RunsListReply>;

export const RunsGetRequest = z.object({ runId: RunId, minPosition: LogPosition.optional() });
export type RunsGetRequest = z.infer<typeof RunsGetRequest>;
export const RunsGetReply = z.object({ run: RunSummary.nullable(), position: LogPosition });
export type RunsGetReply = z.infer<typeof RunsGetReply>;
