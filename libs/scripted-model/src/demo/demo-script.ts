import { StagecraftError } from '@stagecraft/contracts';
import { RecordedRequest, Script, ScriptedReply } from '../script';
import { actStep } from './act-step';
import { readConversation } from './conversation';
import { deliveryStep, qaStep, warmupStep } from './review-steps';
import { WORKFLOW_ROLE_LINE } from '../workflow/read-workflow-request';
import { workflowScript } from '../workflow/workflow-script';

/**
 * A plausible agent for any small project, for runs without a model endpoint. It reads the stage from
 * the `x-stagecraft-stage` header and its progress from the messages, as a model would, so it needs no
 * memory of its own and answers a repeated request the same way. A request of a workflow agent (its
 * system prompt carries a workflow role line) gets the workflow agent's answer.
 */
export function demoScript(): Script {
  const workflow = workflowScript();
  return (request: RecordedRequest): ScriptedReply => {
    const conversation = readConversation(request);
    if (WORKFLOW_ROLE_LINE.test(conversation.system)) return workflow(request);
    switch (conversation.stage) {
      case 'warmup':
        return warmupStep(conversation);
      case 'act':
      case 'tool_followup':
        return actStep(conversation);
      case 'delivery_check':
        return deliveryStep(conversation);
      case 'qa_review':
        return qaStep(conversation);
      default: {
        const unreachable: never = conversation.stage;
        throw new StagecraftError('INTERNAL', `scripted model: unhandled stage ${String(unreachable)}`);
      }
    }
  };
}
