import { z } from 'zod';
import { Id, ServiceName } from './common';
import {
  ConversationForkReply,
  ConversationForkRequest,
  ConversationSendReply,
  ConversationSendRequest,
  RunGetReply,
  RunGetRequest,
} from './conversation';
import { RunEventMessage } from './events';
import { ModelStreamDelta } from './model';
import { ApprovalAnswerReply, ApprovalAnswerRequest } from './approvals';
import { WorkflowGetReply, WorkflowGetRequest, WorkflowStartReply, WorkflowStartRequest } from './workflow-runs';
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
import { RunsGetReply, RunsGetRequest, RunsListReply, RunsListRequest } from './runs';
import { IndexMapReply, IndexMapRequest, ToolExecuteReply, ToolExecuteRequest, ToolProgress } from './tools';

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
  'conversation.fork': contract('conversation', ConversationForkRequest, ConversationForkReply),
  'policy.decide': contract('policy', PolicyDecideRequest, PolicyDecideReply),
  'policy.table': contract('policy', PolicyTableRequest, PolicyTableReply),
  'prompt.assemble': contract('prompt-assembly', PromptAssembleRequest, PromptAssembleReply),
  'workflow.next': contract('prompt-assembly', WorkflowNextRequest, WorkflowNextReply),
  'workflow.start': contract('conversation', WorkflowStartRequest, WorkflowStartReply),
  'workflow.get': contract('conversation', WorkflowGetRequest, WorkflowGetReply),
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
  'run.events': { subject: (runId: string) => `run.${Id.parse(runId)}.events`, message: RunEventMessage },
  'run.stream': { subject: (runId: string) => `run.${Id.parse(runId)}.stream`, message: ModelStreamDelta },
  'tool.progress': { subject: (callId: string) => `tool.${Id.parse(callId)}.progress`, message: ToolProgress },
} as const;

export function withPrefix(prefix: string, subject: string): string {
  return prefix ? `${prefix}.${subject}` : subject;
}
