import { z } from 'zod';
import { ApprovalDecision, ApprovalKind, ApprovalPolicy, PendingApproval } from '../approvals';
import { ConversationId, DeliveryState, Id, IsoTimestamp, NonBlank, RunId, Stage, ToolName, UserMode } from '../common';
import { RunStatus } from '../conversation';
import { ErrorReply } from '../errors';
import { FEED_EVENT_TYPES, FeedEvent } from '../feed';
import { Memory, MemoryProject } from '../memory';
import { QAReport, Usage } from '../qa';
import { FileChange } from '../tools';
import { PhaseName, WorkflowGates, WorkflowStatus, WorkflowView } from '../workflow-runs';

/**
 * The console's HTTP API, version 1 (docs/decisions/0062): JSON under `/api/v1/`, every request and reply
 * one of these schemas, every refusal an `ErrorReply`. Like the feed, v1 only grows (new optional fields,
 * new routes).
 */

/** A position in the global log, as the feed writes it: a decimal string. */
const Position = z.string().regex(/^\d{1,20}$/, 'a log position: a decimal string');
/** A query-string flag or number arrives as text. */
const Limit = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);

export const ApiTokens = z.object({
  input: z.number().int().min(0).describe('prompt tokens over every model call of the run'),
  output: z.number().int().min(0),
  cached: z.number().int().min(0).describe('of `input`, the tokens the provider served from its prompt cache'),
});

/** One run as the runs table shows it: read from the console's runs view, never from the run's log. */
export const RunRow = z.object({
  runId: RunId,
  conversationId: ConversationId,
  status: RunStatus,
  stage: Stage.nullable(),
  mode: UserMode,
  reasoning: z.boolean(),
  startedAt: IsoTimestamp,
  endedAt: IsoTimestamp.optional(),
  durationMs: z.number().int().min(0).optional().describe('endedAt - startedAt, for an ended run'),
  tokens: ApiTokens,
  costUsd: z.number().min(0).optional().describe('at the configured prices (STAGECRAFT_PRICES); absent when a model it used has no price'),
  cacheShare: z.number().min(0).max(1).describe('tokens.cached / tokens.input (0 with no input)'),
  delivery: DeliveryState.optional(),
  qa: z.object({ verdict: QAReport.shape.verdict, findings: z.number().int().min(0) }).optional(),
  cause: z.string().optional().describe('why it ended short: the failure, the cancellation, or why it ended NEEDS_WORK'),
  /** The first line of the user's message, clipped. */
  title: z.string().optional(),
  projectRoot: z.string().optional(),
  workflowId: RunId.optional(),
  /** The tool call a running run waits on a person for. */
  pendingApproval: PendingApproval.optional(),
});
export type RunRow = z.infer<typeof RunRow>;

export const RunsListQuery = z.strictObject({
  status: RunStatus.optional(),
  conversationId: ConversationId.optional(),
  workflowRunId: Id.optional(),
  limit: Limit(500, 50),
  before: z.string().regex(/^\d{1,12}$/, "a cursor: the `next` of the page before").optional(),
});
export type RunsListQuery = z.infer<typeof RunsListQuery>;
export const RunsListReply = z.object({
  runs: z.array(RunRow),
  next: z.string().optional().describe('pass as `before` for the next (older) page; absent on the last page'),
});
export type RunsListReplyV1 = z.infer<typeof RunsListReply>;

export const RunDetail = RunRow.extend({
  userInput: z.string(),
  answer: z.string().optional(),
  limits: z.record(z.string(), z.number().int().min(0)).optional().describe('RunStarted.limits: the bounds recorded for the run'),
  contextWindow: z.number().int().min(0).optional().describe('the largest prompt, in estimated tokens, any request of the run sent'),
  compactions: z.number().int().min(0),
  modelCalls: z.number().int().min(0),
  pendingApprovals: z.array(PendingApproval),
  failure: z.object({ code: z.string(), reason: z.string() }).optional(),
  cancellation: z.object({ by: z.string(), reason: z.string() }).optional(),
  /** The reviewer's report, when QA reviewed the run. */
  qaReport: QAReport.optional(),
  position: Position.describe('the log position the detail was read at: subscribe to /api/v1/events?runId= after it'),
});
export type RunDetail = z.infer<typeof RunDetail>;

export const TimelineEvent = z.object({
  position: Position,
  type: z.enum(FEED_EVENT_TYPES as [string, ...string[]]),
  at: IsoTimestamp,
  stage: Stage.optional().describe('the stage the run was in when the event happened'),
  data: z.record(z.string(), z.unknown()).describe('the feed/v1 event data of this type'),
});
export type TimelineEvent = z.infer<typeof TimelineEvent>;
export const TimelineReply = z.object({ events: z.array(TimelineEvent) });

const ApiToolCall = z.object({ id: Id, name: z.string(), arguments: z.string() });
export const ModelRequestView = z.object({
  requestId: Id,
  stage: Stage,
  model: z.string().optional(),
  toolChoice: z.literal('none').optional(),
  tools: z.array(z.string()),
  messages: z.array(z.object({ role: z.string(), content: z.string() })).describe('as sent, rebuilt from the stored prompt bodies'),
  /** False when the stored bodies could not be found (a log written before they were kept). */
  messagesRestored: z.boolean(),
  response: z.object({
    text: z.string(),
    toolCalls: z.array(ApiToolCall),
    usage: Usage.optional(),
    finishReason: z.string().nullable(),
  }),
});
export type ModelRequestView = z.infer<typeof ModelRequestView>;
export const RequestsReply = z.object({ requests: z.array(ModelRequestView) });

export const DiffEntry = FileChange.extend({ callId: Id, tool: ToolName });
export type DiffEntry = z.infer<typeof DiffEntry>;
export const DiffsReply = z.object({ changes: z.array(DiffEntry) });

export const ConversationsQuery = z.strictObject({ limit: Limit(500, 50) });
export const ConversationRow = z.object({
  conversationId: ConversationId,
  projectRoot: z.string().optional(),
  title: z.string().optional(),
  runs: z.number().int().min(1),
  lastRunId: RunId,
  lastStatus: RunStatus,
  startedAt: IsoTimestamp,
  updatedAt: IsoTimestamp,
});
export const ConversationsReply = z.object({ conversations: z.array(ConversationRow) });
export const ConversationTurn = z.object({
  userMessage: z.string(),
  answer: z.string().optional(),
  runIds: z.array(RunId).min(1),
  status: RunStatus,
  startedAt: IsoTimestamp,
});
export const ConversationDetail = z.object({
  conversationId: ConversationId,
  projectRoot: z.string().optional(),
  turns: z.array(ConversationTurn),
});

export const WorkflowsQuery = z.strictObject({ limit: Limit(500, 50) });
export const WorkflowRow = z.object({
  workflowId: Id,
  goal: z.string(),
  projectRoot: z.string(),
  status: WorkflowStatus,
  startedAt: IsoTimestamp.optional(),
  runs: z.number().int().min(0),
});
export const WorkflowsReply = z.object({ workflows: z.array(WorkflowRow) });
/** The tree: phases → agents → runs, the collectors' decisions, merges (worktrees) and conflicts. */
export const WorkflowDetail = WorkflowView;

export const MemoriesQuery = z.strictObject({ projectRoot: MemoryProject, q: NonBlank.max(2_000).optional(), limit: Limit(50, 20) });
export const MemoriesReply = z.object({ memories: z.array(Memory.extend({ score: z.number().optional() })) });
export const IndexQuery = z.strictObject({ projectRoot: MemoryProject });
export const IndexReply = z.object({ projectRoot: z.string(), map: z.string(), files: z.number().int().min(0) });

export const ApprovalsQuery = z.strictObject({ state: z.literal('pending').default('pending') });
export const ApprovalRow = PendingApproval.extend({
  target: z.enum(['run', 'workflow']),
  /** The run or workflow that waits. */
  id: Id,
  runId: RunId.optional(),
  workflowId: Id.optional(),
});
export const ApprovalsReply = z.object({ approvals: z.array(ApprovalRow) });
export const ApprovalAnswerBody = z.strictObject({ decision: ApprovalDecision, reason: z.string().max(2_000).optional() });
export const ApprovalAnswerReplyV1 = z.object({ approvalId: Id, target: z.enum(['run', 'workflow']), id: Id, decision: ApprovalDecision });

export const CancelBody = z.strictObject({ reason: z.string().trim().max(500).optional() });
export const CancelReply = z.object({ runId: RunId, outcome: z.enum(['cancelled', 'ended']), status: RunStatus });
export const ResumeBody = z.strictObject({});
export const ResumeReply = z.object({ runId: RunId, resumed: z.boolean(), status: RunStatus });

export const ChatBody = z.strictObject({
  message: NonBlank.max(200_000),
  projectRoot: NonBlank.max(4_096),
  mode: UserMode.default('agent'),
  reasoning: z.boolean().default(false),
  conversationId: ConversationId.optional(),
  approve: ApprovalPolicy.optional().describe('which tool calls wait for a person; absent: none'),
});
export const ChatReply = z.object({ runId: RunId, conversationId: ConversationId });

/** A workflow definition (`templateId`, workflows/<id>.json) walked step by step, or the three phases (`phases`). */
export const WorkflowBody = z.strictObject({
  templateId: Id.optional(),
  phases: z.array(PhaseName).min(1).optional(),
  input: NonBlank.max(20_000).describe('the goal'),
  projectRoot: NonBlank.max(4_096),
  reasoning: z.boolean().default(false),
  approve: ApprovalPolicy.default('never'),
  gates: WorkflowGates.partial().optional(),
});
export const WorkflowStartedReply = z.object({ workflowRunId: Id });

export const EventsQuery = z.strictObject({ runId: RunId.optional(), lastEventId: Position.optional() });
/** One SSE message: `id:` the position, `event:` the type, `data:` this. */
export const ApiFeedEvent = FeedEvent;

const NoQuery = z.strictObject({});
const RunParams = z.object({ runId: RunId });
const IdParams = z.object({ id: Id });

interface ApiRoute {
  method: 'GET' | 'POST';
  /** `:name` segments are path parameters. */
  path: string;
  summary: string;
  params?: z.ZodObject;
  query?: z.ZodType;
  body?: z.ZodType;
  status: 200 | 202;
  reply: z.ZodType;
  /** `text/event-stream` instead of JSON. */
  stream?: boolean;
}

const route = <R extends ApiRoute>(r: R) => r;

/** Every route of the API, by id: the server's table and the OpenAPI document are both built from it. */
export const apiV1Routes = {
  listRuns: route({ method: 'GET', path: '/api/v1/runs', summary: 'runs, newest first', query: RunsListQuery, status: 200, reply: RunsListReply }),
  getRun: route({ method: 'GET', path: '/api/v1/runs/:runId', summary: 'one run', params: RunParams, query: NoQuery, status: 200, reply: RunDetail }),
  runTimeline: route({ method: 'GET', path: '/api/v1/runs/:runId/timeline', summary: "a run's public events", params: RunParams, query: NoQuery, status: 200, reply: TimelineReply }),
  runRequests: route({ method: 'GET', path: '/api/v1/runs/:runId/requests', summary: "a run's model requests as sent, with their answers", params: RunParams, query: NoQuery, status: 200, reply: RequestsReply }),
  runDiffs: route({ method: 'GET', path: '/api/v1/runs/:runId/diffs', summary: "the files a run's tool calls changed", params: RunParams, query: NoQuery, status: 200, reply: DiffsReply }),
  cancelRun: route({ method: 'POST', path: '/api/v1/runs/:runId/cancel', summary: 'cancel a run', params: RunParams, query: NoQuery, body: CancelBody, status: 200, reply: CancelReply }),
  resumeRun: route({ method: 'POST', path: '/api/v1/runs/:runId/resume', summary: 'drive an unfinished or cancelled run on', params: RunParams, query: NoQuery, body: ResumeBody, status: 200, reply: ResumeReply }),
  listConversations: route({ method: 'GET', path: '/api/v1/conversations', summary: 'conversations, latest first', query: ConversationsQuery, status: 200, reply: ConversationsReply }),
  getConversation: route({ method: 'GET', path: '/api/v1/conversations/:id', summary: 'a conversation turn by turn', params: IdParams, query: NoQuery, status: 200, reply: ConversationDetail }),
  listWorkflows: route({ method: 'GET', path: '/api/v1/workflows', summary: 'workflows, newest first', query: WorkflowsQuery, status: 200, reply: WorkflowsReply }),
  getWorkflow: route({ method: 'GET', path: '/api/v1/workflows/:id', summary: 'a workflow as a tree', params: IdParams, query: NoQuery, status: 200, reply: WorkflowDetail }),
  startWorkflow: route({ method: 'POST', path: '/api/v1/workflows', summary: 'start a workflow', query: NoQuery, body: WorkflowBody, status: 202, reply: WorkflowStartedReply }),
  memories: route({ method: 'GET', path: '/api/v1/memories', summary: "a project's memories (recalled for q)", query: MemoriesQuery, status: 200, reply: MemoriesReply }),
  index: route({ method: 'GET', path: '/api/v1/index', summary: "a project's codebase index summary", query: IndexQuery, status: 200, reply: IndexReply }),
  listApprovals: route({ method: 'GET', path: '/api/v1/approvals', summary: 'what waits for a person', query: ApprovalsQuery, status: 200, reply: ApprovalsReply }),
  answerApproval: route({ method: 'POST', path: '/api/v1/approvals/:approvalId', summary: 'approve or deny', params: z.object({ approvalId: Id }), query: NoQuery, body: ApprovalAnswerBody, status: 200, reply: ApprovalAnswerReplyV1 }),
  startChat: route({ method: 'POST', path: '/api/v1/chats', summary: 'start a turn; returns without waiting for it', query: NoQuery, body: ChatBody, status: 202, reply: ChatReply }),
  events: route({ method: 'GET', path: '/api/v1/events', summary: 'every public feed event as Server-Sent Events, resumable with Last-Event-ID', query: EventsQuery, status: 200, reply: ApiFeedEvent, stream: true }),
} as const;
export type ApiRouteId = keyof typeof apiV1Routes;
export type ApiV1Route = ApiRoute;

/** Status codes a refusal may have, each with the one error shape. */
export const API_ERROR_STATUSES = [400, 401, 403, 404, 409, 413, 500, 503] as const;
export const ApiError = ErrorReply;

export type ConversationsReplyRow = z.infer<typeof ConversationRow>;
export type ConversationDetailV1 = z.infer<typeof ConversationDetail>;
export type WorkflowRowV1 = z.infer<typeof WorkflowRow>;
export type ApprovalRowV1 = z.infer<typeof ApprovalRow>;
export type MemoriesReplyV1 = z.infer<typeof MemoriesReply>;
