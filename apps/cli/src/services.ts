import { conversationService, conversationServiceWith } from '@stagecraft/conversation-service';
import { memoryService } from '@stagecraft/memory-service';
import type { ModelGateway } from '@stagecraft/model-gateway';
import { policyService } from '@stagecraft/policy-service';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';
import { qaService, qaServiceWith } from '@stagecraft/qa-service';
import { ServiceDefinition } from '@stagecraft/service-shell';
import { toolExecutionOptionsFromEnv, toolExecutionServiceWith } from '@stagecraft/tool-execution-service';

/** The six services in the order `health` reports them; the model-facing two use `gateway` when given. */
export function allServices(options: { gateway?: ModelGateway; resume?: boolean } = {}): ServiceDefinition[] {
  const { gateway, resume } = options;
  return [
    gateway || resume !== undefined ? conversationServiceWith({ gateway, resume }) : conversationService,
    policyService,
    promptAssemblyService,
    toolExecutionServiceWith(toolExecutionOptionsFromEnv(process.env)),
    gateway ? qaServiceWith({ gateway }) : qaService,
    memoryService,
  ];
}
