import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RunCancelReply, RunCancelRequest } from '@stagecraft/contracts';
import { Handles } from '@stagecraft/service-shell';
import type { DriverPorts } from './driver-ports';
import { cancelRun } from './run-cancel';
import { DRIVER_PORTS } from './tokens';

/** `run.cancel`: stop a run, from the CLI, an MCP client or a workflow. */
@Controller()
export class RunCancelController {
  constructor(@Inject(DRIVER_PORTS) private readonly ports: DriverPorts) {}

  @Handles('run.cancel')
  cancel(@Payload() request: RunCancelRequest): Promise<RunCancelReply> {
    return cancelRun(this.ports, request);
  }
}
