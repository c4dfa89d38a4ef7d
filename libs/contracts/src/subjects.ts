import { z } from 'zod';
import { Id, ServiceName } from './common';
import {
  ConversationForkReply,
  ConversationForkRequest,
  ConversationSendReply,
  ConversationSendRequest,
  RunGetReply,
  RunGetRequest,
  RunResumeReply,
  RunResumeRequest,
} from './conversation';
import { FeedEvent } from './feed';
import { ModelStreamDelta } from './model';
import { ApprovalAnswerReply, ApprovalAnswerRequest } from './approvals';
import {
  WorkflowCancelReply,
  WorkflowCancelRequest,
  WorkflowGetReply,
  WorkflowGetRequest,
  WorkflowStartReply,
  WorkflowStartRequest,
} from './workflow-runs';
import { HealthReply, HealthRequest } from './health';
import {
  HistoryGetReply,
  HistoryGetRequest,
  MemoryRecallReply,
  MemoryRecallRequest,
  MemoryReflectReply,
  MemoryReflectRequest,
  MemoryRetainReply,
  MemoryRetainRequest,
  ReasoningOutcomeGetReply,
  ReasoningOutcomeGetRequest,
} from './memory';
import { PolicyDecideReply, PolicyDecideRequest, PolicyTableReply, PolicyTableRequest } from './policy';
import { PromptAssembleReply, PromptAssembleRequest, WorkflowNextReply, WorkflowNextRequest } from './prompts';
import { QaReviewReply, QaReviewRequest } from './qa';
import { RunCancelReply, RunCancelRequest, RunsGetReply, RunsGetRequest, RunsListReply, RunsListRequest } from './runs';
import { IndexMapReply, IndexMapRequest, ToolExecuteReply, ToolExecuteRequest, ToolProgress } from './tools';

const RunCancelledNotice = z.strictObject({ runId: Id });
const ToolCancelNotice = z.strictObject({ callId: Id, reason: z.string().max(500) });

export const DEFAULT_SUBJECT_PREFIX = 'stagecraft';
/** Reported by every health reply; bumped with the contracts. */
export const STAGECRAFT_VERSION = '0.1.0';

interface RequestContract<Req extends z.ZodType, Rep extends z.ZodType> {
  owner: ServiceName;
  request: Req;
  reply: Rep;
}
const contract = <Req extends z.ZodType, Rep extends z.ZodType>(owner: ServiceName, request: Req, reply: Rep) =>
  ({ owner, request, reply }) satisfies RequestContract<Req, Rep>;

/**
 * Every request/reply subject (without the prefix), who serves it and its two schemas.
 * `<service>.health` is served by every service; the rest by their owner only.
 */
export const requestContracts = {
  'conversation.send': contract('conversation', ConversationSendRequest, ConversationSendReply),
  'conversation.run.get': contract('conversation', RunGetRequest, RunGetReply),
  'conversation.run.resume': contract('conversation', RunResumeRequest, RunResumeReply),
  'conversation.fork': contract('conversation', ConversationForkRequest, ConversationForkReply),
  'run.cancel': contract('conversation', RunCancelRequest, RunCancelReply),
  'policy.decide': contract('policy', PolicyDecideRequest, PolicyDecideReply),
  'policy.table': contract('policy', PolicyTableRequest, PolicyTableReply),
  'prompt.assemble': contract('prompt-assembly', PromptAssembleRequest, PromptAssembleReply),
  'workflow.next': contract('prompt-assembly', WorkflowNextRequest, WorkflowNextReply),
  'workflow.start': contract('conversation', WorkflowStartRequest, WorkflowStartReply),
  'workflow.get': contract('conversation', WorkflowGetRequest, WorkflowGetReply),
  'workflow.cancel': contract('conversation', WorkflowCancelRequest, WorkflowCancelReply),
  'approval.answer': contract('conversation', ApprovalAnswerRequest, ApprovalAnswerReply),
  'tool.execute': contract('tool-execution', ToolExecuteRequest, ToolExecuteReply),
  'index.map': contract('tool-execution', IndexMapRequest, IndexMapReply),
  'qa.review': contract('qa', QaReviewRequest, QaReviewReply),
  'memory.retain': contract('memory', MemoryRetainRequest, MemoryRetainReply),
  'memory.recall': contract('memory', MemoryRecallRequest, MemoryRecallReply),
  'memory.reflect': contract('memory', MemoryReflectRequest, MemoryReflectReply),
  'memory.reasoning-outcome.get': contract('memory', ReasoningOutcomeGetRequest, ReasoningOutcomeGetReply),
  'memory.history.get': contract('memory', HistoryGetRequest, HistoryGetReply),
  'runs.list': contract('memory', RunsListRequest, RunsListReply),
  'runs.get': contract('memory', RunsGetRequest, RunsGetReply),
  'conversation.health': contract('conversation', HealthRequest, HealthReply),
  'policy.health': contract('policy', HealthRequest, HealthReply),
  'prompt-assembly.health': contract('prompt-assembly', HealthRequest, HealthReply),
  'tool-execution.health': contract('tool-execution', HealthRequest, HealthReply),
  'qa.health': contract('qa', HealthRequest, HealthReply),
  'memory.health': contract('memory', HealthRequest, HealthReply),
} as const;

export type RequestSubject = keyof typeof requestContracts;
export const REQUEST_SUBJECTS = Object.keys(requestContracts) as RequestSubject[];
export type RequestOf<S extends RequestSubject> = z.input<(typeof requestContracts)[S]['request']>;
export type ParsedRequestOf<S extends RequestSubject> = z.infer<(typeof requestContracts)[S]['request']>;
export type ReplyOf<S extends RequestSubject> = z.infer<(typeof requestContracts)[S]['reply']>;

export const healthSubject = (service: ServiceName) => `${service}.health` as RequestSubject;

export function subjectsOwnedBy(service: ServiceName): RequestSubject[] {
  return REQUEST_SUBJECTS.filter((s) => requestContracts[s].owner === service);
}

/**
 * Published (not requested) subjects: one message per item, no reply. `run.stream` is not durable:
 * the model's text as it arrives, for live views only; the run's events hold what was said.
 */
export const publishContracts = {
  /** The public run feed (feed/v1, docs/decisions/0046): one public event per stored run event, never the stored event itself. */
  'run.events': { subject: (runId: string) => `run.${Id.parse(runId)}.events`, message: FeedEvent },
  'run.stream': { subject: (runId: string) => `run.${Id.parse(runId)}.stream`, message: ModelStreamDelta },
  'tool.progress': { subject: (callId: string) => `tool.${Id.parse(callId)}.progress`, message: ToolProgress },
  /**
   * A hint to whichever replica drives the run that `RunCancelled` was appended; the driver reads the log
   * before it acts on it. One subject with the id in the body: ids may hold dots, and a subscriber to
   * `run.>` would get every feed.
   */
  'run.cancelled': { subject: () => 'run.cancelled', message: RunCancelledNotice },
  /** The driver of a cancelled run asks whichever tool service runs the call to kill it (recorded interrupted). */
  'tool.cancel': { subject: () => 'tool.cancel', message: ToolCancelNotice },
} as const;

export function withPrefix(prefix: string, subject: string): string {
  return prefix ? `${prefix}.${subject}` : subject;
}
