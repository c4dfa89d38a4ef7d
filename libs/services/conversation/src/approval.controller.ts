import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ApprovalAnswerReply, ApprovalAnswerRequest } from '@stagecraft/contracts';
import { Handles } from '@stagecraft/service-shell';
import type { DriverPorts } from './driver-ports';
import { answerRunApproval } from './run-approval';
import type { RunRegistry } from './run-registry';
import { DRIVER_PORTS, RUN_REGISTRY } from './tokens';
import { answerWorkflowApproval } from './workflow/workflow.controller';

/** `approval.answer`: a person's yes or no to what a run (or a workflow) waits for. */
@Controller()
export class ApprovalController {
  constructor(
    @Inject(DRIVER_PORTS) private readonly ports: DriverPorts,
    @Inject(RUN_REGISTRY) private readonly registry: RunRegistry,
  ) {}

  @Handles('approval.answer')
  async answer(@Payload() request: ApprovalAnswerRequest): Promise<ApprovalAnswerReply> {
    // An id that names a workflow is answered by the workflow; every other id is a run's.
    return (await answerWorkflowApproval(this.ports, request)) ?? answerRunApproval(this.ports, this.registry, request);
  }
}
