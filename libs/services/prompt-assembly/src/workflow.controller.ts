import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { WorkflowNextReply, WorkflowNextRequest } from '@stagecraft/contracts';
import { Handles } from '@stagecraft/service-shell';
import { nextWorkflowStep } from '@stagecraft/workflows';
import type { WorkflowCatalog } from '@stagecraft/workflows';
import { WORKFLOWS } from './tokens';

@Controller()
export class WorkflowController {
  constructor(@Inject(WORKFLOWS) private readonly workflows: WorkflowCatalog) {}

  @Handles('workflow.next')
  next(@Payload() request: WorkflowNextRequest): WorkflowNextReply {
    return nextWorkflowStep(this.workflows, request);
  }
}
