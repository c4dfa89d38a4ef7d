import { Inject, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { EVENT_TYPES, StagecraftError, toErrorReply } from '@stagecraft/contracts';
import { EventStore, ProcessorFailure, RunningProcessor, startProcessor } from '@stagecraft/event-store';
import { cachedRequests } from '@stagecraft/messaging';
import { ModelGateway, createOpenAiGateway, gatewayConfigFromEnv } from '@stagecraft/model-gateway';
import { DEFAULT_RUN_LIMITS, RunLimits } from '@stagecraft/run';
import { CompactionSettings } from '@stagecraft/contracts';
import { DEFAULT_COMPACTION } from '@stagecraft/context';
import { compactionFromEnv } from './compaction-config';
import { EVENT_STORE, SHELL_CONFIG, ServiceDefinition, ShellPorts } from '@stagecraft/service-shell';
import { ApprovalController } from './approval.controller';
import { ConversationController } from './conversation.controller';
import { DriverPorts } from './driver-ports';
import { runFollowUp } from './processors/run-follow-up';
import { RunController } from './run.controller';
import { RunRegistry } from './run-registry';
import { DRIVER_PORTS, MODEL_GATEWAY, RUN_REGISTRY } from './tokens';
import { WorkflowController } from './workflow/workflow.controller';
import { workflowFollowUp } from './workflow/workflow-follow-up';

export { RunRegistry } from './run-registry';
export { RUN_REGISTRY } from './tokens';
export { activeRunsProjection } from './active-runs';
export { earlierTurns } from './run-log';
export { restoreRequests, type RestoredRequest } from './prompt-bodies';
export { RUN_FOLLOW_UP, runFollowUp } from './processors/run-follow-up';
export { WORKFLOW_FOLLOW_UP, workflowFollowUp } from './workflow/workflow-follow-up';

export interface ConversationOptions {
  /** A gateway built by the caller (the CLI points it at the scripted server); default: from OPENAI_* / STAGECRAFT_MODEL. */
  gateway?: ModelGateway;
  limits?: Partial<RunLimits>;
  /** Whether to pick up unfinished runs at start-up (default true). */
  resume?: boolean;
  /** Compaction settings on top of the defaults, before the environment's (`STAGECRAFT_COMPACT_*`) apply; `off`: never. */
  compaction?: Partial<CompactionSettings> | 'off';
}

/**
 * Starts what follows the log (turns, the live feed) and waits until it has caught up, so a turn a
 * crash left unwritten is stored before any run is resumed or any new message is read; then resumes.
 */
class ConversationLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private followUp?: RunningProcessor;
  private workflows?: RunningProcessor;

  constructor(
    private readonly ports: DriverPorts,
    private readonly registry: RunRegistry,
    private readonly resume: boolean,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { logger } = this.ports;
    const onError =
      (processor: string) =>
      ({ during, error, attempt, retryInMs, event }: ProcessorFailure) =>
        logger.error(
          { processor, during, attempt, retryInMs, eventId: event?.id, type: event?.type, err: toErrorReply(error).message },
          `${processor} failed; trying again`,
        );
    this.followUp = await startProcessor(this.ports.store, this.ports.store.checkpoints, runFollowUp(this.ports), {
      onError: onError('run-follow-up'),
    });
    await this.followUp.caughtUp;
    if (!this.resume) return this.registry.startRecovery();
    await this.registry.resumeUnfinished();
    this.registry.startRecovery();
    // Workflows go on from the log: their agents' runs were resumed above like any run.
    this.workflows = await startProcessor(this.ports.store, this.ports.store.checkpoints, workflowFollowUp(this.ports, this.registry), {
      onError: onError('workflow-follow-up'),
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.registry.close();
    await this.workflows?.stop();
    await this.followUp?.stop();
  }
}

/** `STAGECRAFT_CRASH_AFTER_COMMIT=<EventType>`: the process kills itself (SIGKILL) right after committing a batch holding that type. */
function crashAfterCommit(env: ShellPorts['env']): DriverPorts['afterCommit'] {
  const type = env['STAGECRAFT_CRASH_AFTER_COMMIT'];
  if (!type) return undefined;
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    const message = `an event type, one of ${EVENT_TYPES.join(', ')}`;
    throw new StagecraftError('VALIDATION', `invalid configuration: STAGECRAFT_CRASH_AFTER_COMMIT: ${message}`, [
      { path: ['STAGECRAFT_CRASH_AFTER_COMMIT'], message },
    ]);
  }
  return (types) => {
    if (types.includes(type)) process.kill(process.pid, 'SIGKILL');
  };
}

export function conversationModule(options: ConversationOptions = {}): new () => unknown {
  @Module({
    controllers: [ConversationController, RunController, ApprovalController, WorkflowController],
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
          // The stage table is a pure function of its request: asked once per minute, not once per run.
          requester: cachedRequests(shell.requester, 'policy.table', { shareReplies: true }),
          bus: shell.bus,
          prefix: shell.prefix,
          clock: shell.clock,
          newId: shell.newId,
          logger: shell.logger,
          limits: { ...DEFAULT_RUN_LIMITS, ...options.limits },
          compaction: options.compaction === 'off' ? null : compactionFromEnv(shell.env, { ...DEFAULT_COMPACTION, ...options.compaction }),
          projectRoots: shell.projectRoots,
          afterCommit: crashAfterCommit(shell.env),
        }),
      },
      { provide: RUN_REGISTRY, inject: [DRIVER_PORTS], useFactory: (ports: DriverPorts) => new RunRegistry(ports) },
      {
        provide: ConversationLifecycle,
        inject: [DRIVER_PORTS, RUN_REGISTRY],
        useFactory: (ports: DriverPorts, registry: RunRegistry) => new ConversationLifecycle(ports, registry, options.resume ?? true),
      },
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
