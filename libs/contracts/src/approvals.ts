import { z } from 'zod';
import { Id, NonBlank, ToolName } from './common';

/**
 * The user's choice, like mode and reasoning, that nothing inside changes: which tool calls wait for a
 * person. `writes`: every call that can change the project (write and execute tools); `commands`: only
 * execute tools; `never`: none.
 */
export const ApprovalPolicy = z.enum(['never', 'writes', 'commands']);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicy>;

/** What waits: a tool call of a run, or a workflow's gate after planning or before merging. */
export const ApprovalKind = z.enum(['tool_call', 'after_planning', 'before_merge']);
export type ApprovalKind = z.infer<typeof ApprovalKind>;

export const ApprovalRequested = z.object({
  approvalId: Id,
  kind: ApprovalKind,
  /** One line for the person deciding: the call and its target, or what the gate lets through. */
  summary: NonBlank,
  callId: Id.optional(),
  tool: ToolName.optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});
export const ApprovalGiven = z.object({ approvalId: Id, note: z.string().max(2_000).optional() });
export const ApprovalDenied = z.object({ approvalId: Id, reason: z.string().max(2_000) });

export const ApprovalDecision = z.enum(['approve', 'deny']);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/**
 * Answers what a run or a workflow waits for. `approvalId` names exactly what is answered (the view's
 * `pendingApproval.approvalId`): an answer for anything else is refused, so nobody approves a call
 * they were never shown.
 */
export const ApprovalAnswerRequest = z.object({
  id: Id.describe('the run or the workflow that waits'),
  approvalId: Id.describe('the approval answered: pendingApproval.approvalId of the run or workflow view'),
  decision: ApprovalDecision,
  reason: z.string().max(2_000).optional().describe('told to the model on a denial'),
});
export type ApprovalAnswerRequest = z.infer<typeof ApprovalAnswerRequest>;
export const ApprovalAnswerReply = z.object({
  id: Id,
  target: z.enum(['run', 'workflow']),
  approvalId: Id,
  decision: ApprovalDecision,
});
export type ApprovalAnswerReply = z.infer<typeof ApprovalAnswerReply>;

/** What a run or workflow view shows while it waits. */
export const PendingApproval = ApprovalRequested.extend({ requestedAt: z.string().optional() });
export type PendingApproval = z.infer<typeof PendingApproval>;
