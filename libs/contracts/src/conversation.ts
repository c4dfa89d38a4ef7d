import { z } from 'zod';
import { CancelledBy, ConversationId, DeliveryState, NonBlank, RunId, Stage, UserMode } from './common';
import { ApprovalPolicy, PendingApproval } from './approvals';
import { EditorBridge } from './editor';

/**
 * The bounds a person may choose for a run, with their ranges: tool rounds between delivery gates, and
 * delivery gates in all. The same ranges bound the service's settings (`STAGECRAFT_MAX_TOOL_ROUNDS`,
 * `STAGECRAFT_MAX_DELIVERY_CHECKS`): at least 1, so every run can act and be checked; at most a bound
 * that keeps one run's cost within reach of a person watching it.
 */
export const RUN_LIMIT_RANGES = {
  maxToolIterations: { min: 1, max: 200 },
  maxDeliveryChecks: { min: 1, max: 20 },
} as const;

/** The context windows a service may be set to (`STAGECRAFT_CONTEXT_WINDOW`, tokens). */
export const CONTEXT_WINDOW_RANGE = { min: 4096, max: 2_000_000 } as const;
const limitIn = ({ min, max }: { min: number; max: number }) => z.number().int().min(min).max(max);

/** Bounds asked for one run; each one left out is the service's setting. An unknown bound is refused, not ignored. */
export const RequestedRunLimits = z.strictObject({
  maxToolIterations: limitIn(RUN_LIMIT_RANGES.maxToolIterations).optional(),
  maxDeliveryChecks: limitIn(RUN_LIMIT_RANGES.maxDeliveryChecks).optional(),
});
export type RequestedRunLimits = z.infer<typeof RequestedRunLimits>;

export const ConversationSendRequest = z.object({
  conversationId: ConversationId.optional(),
  runId: RunId.optional(),
  message: NonBlank.max(200_000),
  userMode: UserMode,
  reasoningEnabled: z.boolean(),
  projectRoot: NonBlank,
  /** Which tool calls of the run wait for a person's approval; absent: none. */
  approve: ApprovalPolicy.optional(),
  /** Bounds for this run over the service's settings; recorded in `RunStarted.limits` and kept for its whole life. */
  limits: RequestedRunLimits.optional(),
  /** The editor the run's file reads and writes go through (recorded in `RunStarted`); absent: the disk. */
  editor: EditorBridge.optional(),
});
export type ConversationSendRequest = z.infer<typeof ConversationSendRequest>;
export const ConversationSendReply = z.object({ runId: RunId, conversationId: ConversationId });
export type ConversationSendReply = z.infer<typeof ConversationSendReply>;

/** A place in a run's stream: the run, and the revision (0-based) of the last event a fork keeps. */
export const RunForkPoint = z.object({ runId: RunId, revision: z.number().int().min(0) });
export type RunForkPoint = z.infer<typeof RunForkPoint>;

/**
 * A new run that starts as a copy of a recorded run up to and including `atRevision`, then is decided
 * again from there. `atRevision` must end one of the run's commits.
 */
export const ConversationForkRequest = z.object({ runId: RunId, atRevision: z.number().int().min(0), newRunId: RunId.optional() });
export type ConversationForkRequest = z.infer<typeof ConversationForkRequest>;
export const ConversationForkReply = z.object({ runId: RunId, conversationId: ConversationId, forkedFrom: RunForkPoint });
export type ConversationForkReply = z.infer<typeof ConversationForkReply>;

/** `cancelled`: someone stopped the run (`RunCancelled`); it is never driven on. */
export const RunStatus = z.enum(['running', 'completed', 'failed', 'cancelled']);
export const RunView = z.object({
  runId: RunId,
  conversationId: ConversationId,
  userMode: UserMode,
  reasoningEnabled: z.boolean(),
  status: RunStatus,
  stage: Stage.nullable(),
  deliveryState: DeliveryState.nullable(),
  answer: z.string().nullable(),
  eventCount: z.number().int().min(0),
  revision: z.number().int().min(-1),
  /** What the run waits for, when a tool call waits for a person's approval. */
  pendingApproval: PendingApproval.nullable().default(null),
});
export type RunView = z.infer<typeof RunView>;

export const RunGetRequest = z.object({ runId: RunId });
export type RunGetRequest = z.infer<typeof RunGetRequest>;
export const RunGetReply = z.object({ run: RunView });
export type RunGetReply = z.infer<typeof RunGetReply>;

/** `conversation.run.resume`: drive an unfinished run on to its end, from whichever process serves it. */
export const RunResumeRequest = z.strictObject({
  runId: RunId,
  /** Who takes a cancelled run up again (`RunContinued.by`); a run that was not cancelled records nothing. */
  by: CancelledBy.default('cli'),
});
export type RunResumeRequest = z.infer<typeof RunResumeRequest>;
/**
 * `resumed`: a driver was started for the run (a cancelled one is continued first), or one drives it
 * already (follow its feed). False for a run that has ended or waits for a person's approval: `run` says which.
 */
export const RunResumeReply = z.object({ run: RunView, resumed: z.boolean() });
export type RunResumeReply = z.infer<typeof RunResumeReply>;
