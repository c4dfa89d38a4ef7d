import { ServiceName } from '@stagecraft/contracts';
import { EventStore, openEventStore } from '@stagecraft/event-store';
import { ConnectRetry, MessageBus, NatsAuth, connectNatsBus, createInprocBus } from '@stagecraft/messaging';
import { stopTracing } from '@stagecraft/telemetry';
import { ShellConfig } from './config';
import { composePorts } from './compose-ports';
import { ProcessInstance, ServiceDefinition, ShellPorts, processInstance } from './ports';
import { RunningServices, StopOptions, startServices } from './start-services';

export interface HostOptions {
  definitions: ServiceDefinition[];
  only?: ServiceName[];
  transport: 'inproc' | 'nats';
  natsUrl?: string;
  /** Who the host is on NATS (see ShellConfig.natsAuth). */
  natsAuth?: NatsAuth;
  store: string;
  config: Pick<ShellConfig, 'prefix' | 'requestTimeoutMs' | 'logLevel' | 'projectRoots'>;
  /** What the services may read from the environment; none unless the caller passes it. */
  env?: Readonly<Record<string, string | undefined>>;
  /** NATS only: keep trying while the server is not there yet (default: one attempt). */
  connectRetry?: ConnectRetry;
  /** The process hosting the services; by default the one this runs in (see `embeddingProcess`). */
  instance?: ProcessInstance;
}

export interface Host {
  ports: ShellPorts;
  running: RunningServices;
  /** Requests in flight get `graceMs` (default: none) to finish; those left unanswered are named to `onAbandoned`. */
  close(options?: StopOptions): Promise<void>;
}

/** Several services in this process: all six on the in-process bus by default (the embedded deployment). */
export async function startHost(options: HostOptions): Promise<Host> {
  const definitions = options.only ? options.definitions.filter((d) => options.only?.includes(d.name)) : options.definitions;
  let bus: MessageBus;
  if (options.transport === 'nats') {
    if (!options.natsUrl) throw new Error('--transport nats needs --nats-url or NATS_URL');
    // On a bus, requests come from anyone who can reach it: the directories they may name must be set.
    if (definitions.some((d) => d.touchesProjects) && !options.config.projectRoots?.length) {
      throw new Error(
        'invalid configuration: STAGECRAFT_PROJECT_ROOTS: required to serve conversation, tool-execution or memory over NATS',
      );
    }
    bus = await connectNatsBus({ servers: options.natsUrl, auth: options.natsAuth }, 'stagecraft-host', { retry: options.connectRetry });
  } else {
    bus = createInprocBus();
  }
  const store: EventStore | null = definitions.some((d) => d.usesStore) ? await openEventStore(options.store) : null;
  const ports = composePorts(bus, store, options.config, options.env ?? {}, options.instance ?? embeddingProcess());
  const running = await startServices(definitions, ports);
  return {
    ports,
    running,
    async close(stop) {
      await running.close(stop);
      await bus.close();
      await store?.close();
      // Spans are exported in batches: the last ones of a short CLI command would otherwise be lost.
      await stopTracing().catch(() => undefined);
    },
  };
}

/**
 * A host runs inside a program that is not a service app (the CLI, a test): that program is the
 * process, and unless it says otherwise, this is what it is. Service apps pass theirs from `main`.
 */
export function embeddingProcess(): ProcessInstance {
  return processInstance(process);
}
