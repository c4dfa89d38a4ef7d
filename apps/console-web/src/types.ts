import type { apiV1 } from '@stagecraft/contracts';
import type { z } from 'zod';

/** The API's reply shapes, from its zod schemas (libs/contracts/src/api/v1.ts): types only, no zod in the bundle. */
export type RunRow = z.infer<typeof apiV1.RunRow>;
export type RunsList = z.infer<typeof apiV1.RunsListReply>;
export type RunDetail = z.infer<typeof apiV1.RunDetail>;
export type TimelineEvent = z.infer<typeof apiV1.TimelineEvent>;
export type Timeline = z.infer<typeof apiV1.TimelineReply>;
export type ModelRequest = z.infer<typeof apiV1.ModelRequestView>;
export type Requests = z.infer<typeof apiV1.RequestsReply>;
export type DiffEntry = z.infer<typeof apiV1.DiffEntry>;
export type Diffs = z.infer<typeof apiV1.DiffsReply>;
export type ConversationsList = z.infer<typeof apiV1.ConversationsReply>;
export type ConversationDetail = z.infer<typeof apiV1.ConversationDetail>;
export type WorkflowsList = z.infer<typeof apiV1.WorkflowsReply>;
export type WorkflowDetail = z.infer<typeof apiV1.WorkflowDetail>;
export type PendingApproval = RunDetail['pendingApprovals'][number];
export type QAReport = NonNullable<RunDetail['qaReport']>;
