import { Inject, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { EVENT_TYPES, StagecraftError, toErrorReply } from '@stagecraft/contracts';
import { EventStore, ProcessorFailure, startProcessor } from '@stagecraft/event-store';
import { hostname } from 'node:os';
import { cachedRequests, leasesFor, retainRunEvents } from '@stagecraft/messaging';
import { ModelGateway, createOpenAiGateway, gatewayConfigFromEnv, instrumentedGateway } from '@stagecraft/model-gateway';
import { DEFAULT_RUN_LIMITS, RunLimits } from '@stagecraft/run';
import { CompactionSettings } from '@stagecraft/contracts';
import { DEFAULT_COMPACTION } from '@stagecraft/run';
import { compactionFromEnv } from './compaction-config';
import { EVENT_STORE, SHELL_CONFIG, ServiceDefinition, ShellPorts } from '@stagecraft/service-shell';
import { ApprovalController } from './approval.controller';
import { ConversationController } from './conversation.controller';
import { DriverPorts } from './driver-ports';
import { LeasePorts } from './leases/held-lease';
import { sweepEveryMs } from './leases/lease-decisions';
import { ProcessorLeadership } from './leases/processor-leadership';
import { ScaleSettings, scaleFromEnv } from './scale-config';
import { RUN_FOLLOW_UP, runFollowUp } from './processors/run-follow-up';
import { RunController } from './run.controller';
import { RunCancelController } from './run-cancel.controller';
import { subscribeRunCancelled } from './cancel-notices';
import type { BusSubscription } from '@stagecraft/messaging';
import { RunRegistry } from './run-registry';
import { DRIVER_PORTS, LEASE_PORTS, MODEL_GATEWAY, RUN_REGISTRY, SCALE_SETTINGS } from './tokens';
import { WorkflowController } from './workflow/workflow.controller';
import { WORKFLOW_FOLLOW_UP, workflowFollowUp } from './workflow/workflow-follow-up';

export { RunRegistry } from './run-registry';
export { RUN_REGISTRY } from './tokens';
export { activeRunsProjection } from './active-runs';
export { earlierTurns } from './run-log';
export { restoreRequests, type RestoredRequest } from './prompt-bodies';
export { RUN_FOLLOW_UP, runFollowUp } from './processors/run-follow-up';
export { WORKFLOW_FOLLOW_UP, workflowFollowUp } from './workflow/workflow-follow-up';
export { DEFAULT_LEASE_TTL_MS, scaleFromEnv, type ScaleSettings } from './scale-config';

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
 * Each processor runs on the replica that holds its lease, and a sweep takes over what a dead replica
 * held: its processors and its runs (docs/decisions/0026).
 */
class ConversationLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  private followUp?: ProcessorLeadership;
  private workflows?: ProcessorLeadership;
  private sweeper?: NodeJS.Timeout;
  private cancellations?: BusSubscription;

  constructor(
    private readonly ports: DriverPorts,
    private readonly registry: RunRegistry,
    private readonly leases: LeasePorts,
    private readonly scale: ScaleSettings,
    private readonly resume: boolean,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { logger, store, bus, prefix } = this.ports;
    // Before anything is published: a late subscriber reads the feed from a run's start.
    await retainRunEvents(bus, prefix, this.scale.runEventsMaxAgeMs);
    // Whichever replica receives `run.cancel`, the one driving the run hears of it here.
    this.cancellations = subscribeRunCancelled(bus, prefix, (runId) => {
      this.registry.noticeCancelled(runId).catch((error: unknown) => {
        logger.warn({ runId, err: toErrorReply(error).message }, 'cancellation notice could not be checked');
      });
    });
    const onError =
      (processor: string) =>
      ({ during, error, attempt, retryInMs, event }: ProcessorFailure) =>
        logger.error(
          { processor, during, attempt, retryInMs, eventId: event?.id, type: event?.type, err: toErrorReply(error).message },
          `${processor} failed; trying again`,
        );
    this.followUp = new ProcessorLeadership(this.leases, RUN_FOLLOW_UP, () =>
      startProcessor(store, store.checkpoints, runFollowUp(this.ports), { onError: onError('run-follow-up') }),
    );
    await (
      await this.followUp.tryLead()
    )?.caughtUp;
    if (!this.resume) return this.registry.startRecovery();
    await this.registry.resumeUnfinished();
    this.registry.startRecovery();
    // Workflows go on from the log: their agents' runs were resumed above like any run.
    this.workflows = new ProcessorLeadership(this.leases, WORKFLOW_FOLLOW_UP, () =>
      startProcessor(store, store.checkpoints, workflowFollowUp(this.ports, this.registry), { onError: onError('workflow-follow-up') }),
    );
    await this.workflows.tryLead();
    // One process is the whole replica set in process: nothing to take over.
    if (this.leases.leases.kind === 'in-process') return;
    this.sweeper = setInterval(() => void this.sweep(), sweepEveryMs(this.leases.leases.ttlMs));
    this.sweeper.unref();
  }

  private async sweep(): Promise<void> {
    for (const [what, step] of [
      ['run-follow-up', () => this.followUp?.tryLead()],
      ['workflow-follow-up', () => this.workflows?.tryLead()],
      ['runs', () => this.registry.takeOver()],
    ] as const) {
      try {
        await step();
      } catch (error) {
        this.ports.logger.warn({ sweep: what, err: toErrorReply(error).message }, 'takeover sweep failed; trying again');
      }
    }
  }

  async onModuleDestroy(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.cancellations?.unsubscribe();
    await this.registry.close();
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
    controllers: [ConversationController, RunController, RunCancelController, ApprovalController, WorkflowController],
    providers: [
      {
        provide: MODEL_GATEWAY,
        inject: [SHELL_CONFIG],
        useFactory: (shell: ShellPorts): ModelGateway => {
          if (options.gateway) return instrumentedGateway(options.gateway);
          const config = gatewayConfigFromEnv(shell.env);
          return instrumentedGateway(createOpenAiGateway({ ...config, logger: shell.logger }));
        },
      },
      { provide: SCALE_SETTINGS, inject: [SHELL_CONFIG], useFactory: (shell: ShellPorts): ScaleSettings => scaleFromEnv(shell.env) },
      {
        provide: LEASE_PORTS,
        inject: [SHELL_CONFIG, SCALE_SETTINGS],
        useFactory: async (shell: ShellPorts, scale: ScaleSettings): Promise<LeasePorts> => ({
          leases: await leasesFor(shell.bus, shell.prefix, scale.leaseTtlMs),
          // Host and process in the name, so an operator reading a lease knows whose it is.
          owner: `${hostname()}:${process.pid}:${shell.newId().slice(0, 8)}`,
          clock: shell.clock,
          logger: shell.logger,
        }),
      },
      {
        provide: DRIVER_PORTS,
        inject: [SHELL_CONFIG, EVENT_STORE, MODEL_GATEWAY, LEASE_PORTS],
        useFactory: (shell: ShellPorts, store: EventStore, gateway: ModelGateway, leases: LeasePorts): DriverPorts => ({
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
          writer: leases.leases.kind === 'in-process' ? undefined : leases.owner,
        }),
      },
      {
        provide: RUN_REGISTRY,
        inject: [DRIVER_PORTS, LEASE_PORTS],
        useFactory: (ports: DriverPorts, leases: LeasePorts) => new RunRegistry(ports, { leases }),
      },
      {
        provide: ConversationLifecycle,
        inject: [DRIVER_PORTS, RUN_REGISTRY, LEASE_PORTS, SCALE_SETTINGS],
        useFactory: (ports: DriverPorts, registry: RunRegistry, leases: LeasePorts, scale: ScaleSettings) =>
          new ConversationLifecycle(ports, registry, leases, scale, options.resume ?? true),
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
