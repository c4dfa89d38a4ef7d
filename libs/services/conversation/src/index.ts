import { Inject, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { EventStore } from '@stagecraft/event-store';
import { ModelGateway, createOpenAiGateway, gatewayConfigFromEnv } from '@stagecraft/model-gateway';
import { DEFAULT_RUN_LIMITS, RunLimits } from '@stagecraft/run';
import { EVENT_STORE, SHELL_CONFIG, ServiceDefinition, ShellPorts } from '@stagecraft/service-shell';
import { ConversationController } from './conversation.controller';
import { DriverPorts } from './driver-ports';
import { RunController } from './run.controller';
import { RunRegistry } from './run-registry';
import { DRIVER_PORTS, MODEL_GATEWAY, RUN_REGISTRY } from './tokens';

export { RunRegistry } from './run-registry';
export { RUN_REGISTRY } from './tokens';
export { activeRunsProjection } from './active-runs';

export interface ConversationOptions {
  /** A gateway built by the caller (the CLI points it at the scripted server); default: from OPENAI_* / STAGECRAFT_MODEL. */
  gateway?: ModelGateway;
  limits?: Partial<RunLimits>;
  /** Whether to pick up unfinished runs at start-up (default true). */
  resume?: boolean;
}

class RegistryLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(@Inject(RUN_REGISTRY) private readonly registry: RunRegistry, private readonly resume: boolean) {}
  async onApplicationBootstrap(): Promise<void> {
    if (this.resume) await this.registry.resumeUnfinished();
    this.registry.startRecovery();
  }
  onModuleDestroy(): void {
    this.registry.close();
  }
}

export function conversationModule(options: ConversationOptions = {}): new () => unknown {
  @Module({
    controllers: [ConversationController, RunController],
    providers: [
      {
        provide: MODEL_GATEWAY,
        inject: [SHELL_CONFIG],
        useFactory: (shell: ShellPorts): ModelGateway => {
          if (options.gateway) return options.gateway;
          const config = gatewayConfigFromEnv(shell.env);
          return createOpenAiGateway({ ...config, logger: shell.logger });
        },
      },
      {
        provide: DRIVER_PORTS,
        inject: [SHELL_CONFIG, EVENT_STORE, MODEL_GATEWAY],
        useFactory: (shell: ShellPorts, store: EventStore, gateway: ModelGateway): DriverPorts => ({
          store,
          gateway,
          requester: shell.requester,
          bus: shell.bus,
          prefix: shell.prefix,
          clock: shell.clock,
          newId: shell.newId,
          logger: shell.logger,
          limits: { ...DEFAULT_RUN_LIMITS, ...options.limits },
          projectRoots: shell.projectRoots,
        }),
      },
      { provide: RUN_REGISTRY, inject: [DRIVER_PORTS], useFactory: (ports: DriverPorts) => new RunRegistry(ports) },
      { provide: RegistryLifecycle, inject: [RUN_REGISTRY], useFactory: (registry: RunRegistry) => new RegistryLifecycle(registry, options.resume ?? true) },
    ],
    exports: [RUN_REGISTRY],
  })
  class ConversationModule {}
  return ConversationModule;
}

export function conversationServiceWith(options: ConversationOptions): ServiceDefinition {
  return { name: 'conversation', module: conversationModule(options), usesStore: true, touchesProjects: true };
}

export const conversationService: ServiceDefinition = conversationServiceWith({});
