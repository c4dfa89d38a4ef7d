/** The conversation service: runs and workflows started, driven, resumed and cancelled from the log, as a handler table. */
import { ServiceDefinition, defineService } from '@stagecraft/service-shell';
import { answerApproval } from './approval/answer-approval.handler';
import { Conversation, ConversationOptions, startConversation } from './dependencies';
import { conversationProcessors } from './lifecycle';
import { cancelRun } from './run-cancel';

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
      'conversation.send': (request, c, context) => c.conversations.send(request, context),
      'conversation.fork': (request, c, context) => c.conversations.fork(request, context),
      'conversation.run.get': (request, c) => c.runs.get(request),
      'conversation.run.resume': (request, c) => c.runs.resume(request),
      'run.cancel': (request, c) => cancelRun(c.ports, request),
      'approval.answer': answerApproval,
      'workflow.start': (request, c) => c.workflows.start(request),
      'workflow.cancel': (request, c) => c.workflows.cancel(request),
      'workflow.get': (request, c) => c.workflows.get(request),
    },
    processors: conversationProcessors,
  });
}

export const conversationService: ServiceDefinition = conversationServiceWith({});
