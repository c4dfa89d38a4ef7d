/** The conversation service: runs and workflows started, driven, resumed and cancelled from the log, as a handler table. */
import { ServiceDefinition, defineService } from '@stagecraft/service-shell';
import { approvalAnswer } from './approval-answer/approval-answer.handler';
import { Conversation, ConversationOptions, startConversation } from './dependencies';
import { fork } from './fork/fork.handler';
import { conversationProcessors } from './lifecycle';
import { runCancel } from './run-cancel/run-cancel.handler';
import { runGet } from './run-get/run-get.handler';
import { runResume } from './run-resume/run-resume.handler';
import { send } from './send/send.handler';
import { workflowCancel } from './workflow-cancel/workflow-cancel.handler';
import { workflowGet } from './workflow-get/workflow-get.handler';
import { workflowStart } from './workflow-start/workflow-start.handler';

export type { Conversation, ConversationOptions } from './dependencies';
export { RunRegistry } from './run-registry';
export { activeRunsProjection } from './active-runs';
export { earlierTurns } from './run-log';
export { restoreRequests, type RestoredRequest } from './prompt-bodies';
export { RUN_FOLLOW_UP, runFollowUp } from './processors/run-follow-up';
export { WORKFLOW_FOLLOW_UP, workflowFollowUp } from './workflow/workflow-follow-up';
export { DEFAULT_LEASE_TTL_MS, scaleFromEnv, type ScaleSettings } from './scale-config';

export function conversationServiceWith(options: ConversationOptions): ServiceDefinition {
  return defineService<Conversation>({
    name: 'conversation',
    usesStore: true,
    touchesProjects: true,
    start: (ports) => startConversation(ports, options),
    handlers: {
      'conversation.send': send,
      'conversation.fork': fork,
      'conversation.run.get': runGet,
      'conversation.run.resume': runResume,
      'run.cancel': runCancel,
      'approval.answer': approvalAnswer,
      'workflow.start': workflowStart,
      'workflow.cancel': workflowCancel,
      'workflow.get': workflowGet,
    },
    processors: conversationProcessors,
  });
}

export const conversationService: ServiceDefinition = conversationServiceWith({});
