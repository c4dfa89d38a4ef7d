import { Controller, Inject, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { IndexMapReply, IndexMapRequest, ToolExecuteReply, ToolExecuteRequest } from '@stagecraft/contracts';
import { publishContracts, withPrefix } from '@stagecraft/contracts';
import type { BusSubscription } from '@stagecraft/messaging';
import { RunningCalls } from './running-calls';
import type { EventStore } from '@stagecraft/event-store';
import type { MessageBus, RequestContext, Requester } from '@stagecraft/messaging';
import { CLOCK, EVENT_STORE, Handles, MESSAGE_BUS, NEW_ID, REQUESTER, SHELL_CONFIG } from '@stagecraft/service-shell';
import type { Clock, NewId, ShellPorts } from '@stagecraft/service-shell';
import { projectMapFor } from './codebase-index';
import { ToolCallPorts, recoverInterruptedCalls } from './execute-tool-call';
import { tracedToolCall } from './traced-tool-call';
import { defaultInFlightDir } from './in-flight';
import { TOOL_EXECUTION_OPTIONS } from './options';
import type { ToolExecutionOptions } from './options';
import { embedderFromEnv } from '@stagecraft/model-gateway';

@Controller()
export class ToolExecutionController implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly ports: ToolCallPorts;
  private cancellations?: BusSubscription;
  private readonly logger: ShellPorts['logger'];

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(MESSAGE_BUS) bus: MessageBus,
    @Inject(CLOCK) clock: Clock,
    @Inject(NEW_ID) newId: NewId,
    @Inject(SHELL_CONFIG) shell: ShellPorts,
    @Inject(TOOL_EXECUTION_OPTIONS) options: ToolExecutionOptions,
    @Inject(REQUESTER) requester: Requester,
  ) {
    this.ports = {
      store,
      bus,
      clock,
      newId,
      prefix: shell.prefix,
      options: { ...options, allowedRoots: options.allowedRoots ?? shell.projectRoots },
      inFlightDir: options.inFlightDir ?? defaultInFlightDir(),
      running: new RunningCalls(options.inFlightDir ?? defaultInFlightDir()),
      requester,
      embedder: embedderFromEnv(shell.env),
    };
    this.logger = shell.logger;
  }

  /** Before serving: what a tool service on this host left running when it died is stopped and recorded. */
  async onApplicationBootstrap(): Promise<void> {
    const recovered = await recoverInterruptedCalls(this.ports);
    if (recovered.length > 0) this.logger.warn({ calls: recovered }, 'recorded tool calls interrupted by a stopped tool service');
    // Every replica hears a cancellation; the one running the call kills it. Anyone on the bus may be hostile: a
    // message that is not a notice is dropped, and only a call running here is touched.
    const { bus, prefix, running } = this.ports;
    this.cancellations = bus.subscribe(withPrefix(prefix, publishContracts['tool.cancel'].subject()), (m) => {
      let body: unknown;
      try {
        body = JSON.parse(m.body);
      } catch {
        return;
      }
      const notice = publishContracts['tool.cancel'].message.safeParse(body);
      if (notice.success && running?.cancel(notice.data.callId))
        this.logger.info({ callId: notice.data.callId, reason: notice.data.reason }, 'tool call cancelled');
    });
  }

  onModuleDestroy(): void {
    this.cancellations?.unsubscribe();
  }

  @Handles('tool.execute')
  execute(@Payload() request: ToolExecuteRequest, @Ctx() context: RequestContext): Promise<ToolExecuteReply> {
    return tracedToolCall(this.ports, request, context);
  }

  /** The project map for warmup: the root is checked like a tool call's, and indexed on first use. */
  @Handles('index.map')
  indexMap(@Payload() request: IndexMapRequest, @Ctx() context: RequestContext): Promise<IndexMapReply> {
    return projectMapFor(this.ports, request, context);
  }
}
