import { EVENT_TYPES, StagecraftError } from '@stagecraft/contracts';
import type { CompactionSettings } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { cachedRequests, leasesFor } from '@stagecraft/messaging';
import { ModelGateway, createOpenAiGateway, gatewayConfigFromEnv, instrumentedGateway } from '@stagecraft/model-gateway';
import { DEFAULT_COMPACTION, DEFAULT_RUN_LIMITS, RunLimits, StageMessageRole } from '@stagecraft/run';
import type { ShellPorts } from '@stagecraft/service-shell';
import { compactionFromEnv } from './compaction-config';
import { limitsFromEnv, stageMessageRoleFromEnv } from './limits-config';
import { DriverPorts } from './driver-ports';
import { LeasePorts } from './leases/held-lease';
import { ProcessorLeadership } from './leases/processor-leadership';
import { RunRegistry } from './run-registry';
import { ScaleSettings, scaleFromEnv } from './scale-config';

export interface ConversationOptions {
  /** A gateway built by the caller (the CLI points it at the scripted server); default: from OPENAI_* / STAGECRAFT_MODEL. */
  gateway?: ModelGateway;
  /** Bounds on top of the defaults, before the environment's (`STAGECRAFT_MAX_*`) apply; a request's own come last. */
  limits?: Partial<RunLimits>;
  /** Whether to pick up unfinished runs at start-up (default true). */
  resume?: boolean;
  /** Compaction settings on top of the defaults, before the environment's (`STAGECRAFT_COMPACT_*`) apply; `off`: never. */
  compaction?: Partial<CompactionSettings> | 'off';
  /** How the stage's part of each prompt is sent, before the environment's (`STAGECRAFT_STAGE_MESSAGE_ROLE`) applies; default `system`. */
  stageMessageRole?: StageMessageRole;
}

/** What the conversation service's handlers and processors work with, built once per start. */
export interface Conversation {
  shell: ShellPorts;
  ports: DriverPorts;
  registry: RunRegistry;
  leases: LeasePorts;
  scale: ScaleSettings;
  resume: boolean;
  /** The log processors, each led by one replica at a time; started by the service's processors. */
  followUp: { runs: ProcessorLeadership | null; workflows: ProcessorLeadership | null };
}

/** `STAGECRAFT_CRASH_AFTER_COMMIT=<EventType>`: the process kills itself (SIGKILL) right after committing a batch holding that type. */
function crashAfterCommit(shell: ShellPorts): DriverPorts['afterCommit'] {
  const type = shell.env['STAGECRAFT_CRASH_AFTER_COMMIT'];
  if (!type) return undefined;
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    const message = `an event type, one of ${EVENT_TYPES.join(', ')}`;
    throw new StagecraftError('VALIDATION', `invalid configuration: STAGECRAFT_CRASH_AFTER_COMMIT: ${message}`, [
      { path: ['STAGECRAFT_CRASH_AFTER_COMMIT'], message },
    ]);
  }
  return (types) => {
    if (types.includes(type)) shell.instance.crash();
  };
}

function gatewayOf(shell: ShellPorts, options: ConversationOptions): ModelGateway {
  if (options.gateway) return instrumentedGateway(options.gateway);
  const config = gatewayConfigFromEnv(shell.env);
  return instrumentedGateway(createOpenAiGateway({ ...config, logger: shell.logger }));
}

/** Reads the settings (a bad variable stops the start, naming it), opens the leases, and builds the run registry. */
export async function startConversation(shell: ShellPorts, options: ConversationOptions): Promise<Conversation> {
  const gateway = gatewayOf(shell, options);
  const scale = scaleFromEnv(shell.env);
  const limits = limitsFromEnv(shell.env, { ...DEFAULT_RUN_LIMITS, ...options.limits });
  const leases: LeasePorts = {
    leases: await leasesFor(shell.bus, shell.prefix, scale.leaseTtlMs),
    // Host and process in the name, so an operator reading a lease knows whose it is.
    owner: `${shell.instance.hostname}:${shell.instance.pid}:${shell.newId().slice(0, 8)}`,
    clock: shell.clock,
    logger: shell.logger,
  };
  const store = shell.store as EventStore;
  const ports: DriverPorts = {
    store,
    gateway,
    // The stage table is a pure function of its request: asked once per minute, not once per run.
    requester: cachedRequests(shell.requester, 'policy.table', { shareReplies: true }),
    bus: shell.bus,
    prefix: shell.prefix,
    clock: shell.clock,
    newId: shell.newId,
    logger: shell.logger,
    limits,
    stageMessageRole: stageMessageRoleFromEnv(shell.env, options.stageMessageRole ?? 'system'),
    compaction: options.compaction === 'off' ? null : compactionFromEnv(shell.env, { ...DEFAULT_COMPACTION, ...options.compaction }),
    projectRoots: shell.projectRoots,
    afterCommit: crashAfterCommit(shell),
    writer: leases.leases.kind === 'in-process' ? undefined : leases.owner,
  };
  const registry = new RunRegistry(ports, { leases });
  return {
    shell,
    ports,
    registry,
    leases,
    scale,
    resume: options.resume ?? true,
    followUp: { runs: null, workflows: null },
  };
}
