import { conversationService } from '@stagecraft/conversation-service';
import { memoryService } from '@stagecraft/memory-service';
import { policyService } from '@stagecraft/policy-service';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';
import { qaService } from '@stagecraft/qa-service';
import { ServiceDefinition } from '@stagecraft/service-shell';
import { toolExecutionService } from '@stagecraft/tool-execution-service';

/** The six services in the order `health` reports them. */
export const ALL_SERVICES: ServiceDefinition[] = [
  conversationService,
  policyService,
  promptAssemblyService,
  toolExecutionService,
  qaService,
  memoryService,
];
