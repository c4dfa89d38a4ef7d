import { StagecraftError } from '@stagecraft/contracts';
import { RecordedRequest, Script, ScriptedReply } from '../script';
import { actStep } from './act-step';
import { readConversation } from './conversation';
import { deliveryStep, qaStep, warmupStep } from './review-steps';

/**
 * A plausible agent for any small project, for runs without a model endpoint. It reads the stage from
 * the `x-stagecraft-stage` header and its progress from the messages, as a model would, so it needs no
 * memory of its own and answers a repeated request the same way.
 */
export function demoScript(): Script {
  return (request: RecordedRequest): ScriptedReply => {
    const conversation = readConversation(request);
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
