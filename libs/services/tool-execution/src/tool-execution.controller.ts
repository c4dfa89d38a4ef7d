import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { ToolExecuteReply, ToolExecuteRequest } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import type { MessageBus, RequestContext } from '@stagecraft/messaging';
import { CLOCK, EVENT_STORE, Handles, MESSAGE_BUS, NEW_ID, SHELL_CONFIG } from '@stagecraft/service-shell';
import type { Clock, NewId, ShellPorts } from '@stagecraft/service-shell';
import { ToolCallPorts, executeToolCall } from './execute-tool-call';
import { TOOL_EXECUTION_OPTIONS } from './options';
import type { ToolExecutionOptions } from './options';

@Controller()
export class ToolExecutionController {
  private readonly ports: ToolCallPorts;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(MESSAGE_BUS) bus: MessageBus,
    @Inject(CLOCK) clock: Clock,
    @Inject(NEW_ID) newId: NewId,
    @Inject(SHELL_CONFIG) shell: ShellPorts,
    @Inject(TOOL_EXECUTION_OPTIONS) options: ToolExecutionOptions,
  ) {
    this.ports = { store, bus, clock, newId, prefix: shell.prefix, options };
  }

  @Handles('tool.execute')
  execute(@Payload() request: ToolExecuteRequest, @Ctx() context: RequestContext): Promise<ToolExecuteReply> {
    return executeToolCall(this.ports, request, context);
  }
}
