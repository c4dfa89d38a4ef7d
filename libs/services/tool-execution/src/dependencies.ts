import type { EventStore } from '@stagecraft/event-store';
import type { MessageBus, Requester } from '@stagecraft/messaging';
import { embedderFromEnv } from '@stagecraft/model-gateway';
import type { Embedder } from '@stagecraft/model-gateway';
import type { Clock, NewId, ShellPorts } from '@stagecraft/service-shell';
import type { ToolExecutionOptions } from './options';
import { defaultInFlightDir } from './running/in-flight';
import { RunningCalls } from './running/running-calls';

/** What the tool service's handlers and processors work with, built once from the process's ports. */
export interface ToolCallPorts {
  store: EventStore;
  bus: MessageBus;
  prefix: string;
  clock: Clock;
  newId: NewId;
  options: ToolExecutionOptions;
  /** Where this host notes the processes of calls in flight (the option, or the default under the temp directory). */
  inFlightDir: string;
  /** The pid of the process this service runs in, as its app names it: the owner of the processes it notes. */
  pid: number;
  /** Answers the memory tools through the memory service; without it they fail with guidance. */
  requester?: Requester;
  /** `STAGECRAFT_EMBEDDING_MODEL`'s embedder: `search_index` also ranks by meaning when there is one. */
  embedder?: Embedder;
  /** The calls running here, which a cancelled run's driver may ask to kill (`tool.cancel`); without it none can be. */
  running?: RunningCalls;
}

export interface ToolExecutionDeps extends ToolCallPorts {
  logger: ShellPorts['logger'];
}

/** Project roots confined by the shell's STAGECRAFT_PROJECT_ROOTS, unless the options name their own. */
export function toolExecutionDeps(shell: ShellPorts, options: ToolExecutionOptions): ToolExecutionDeps {
  if (!shell.store) throw new Error('tool-execution needs an event store');
  const inFlightDir = options.inFlightDir ?? defaultInFlightDir();
  return {
    store: shell.store,
    bus: shell.bus,
    clock: shell.clock,
    newId: shell.newId,
    prefix: shell.prefix,
    options: { ...options, allowedRoots: options.allowedRoots ?? shell.projectRoots },
    inFlightDir,
    pid: shell.instance.pid,
    running: new RunningCalls(inFlightDir, shell.instance.pid),
    requester: shell.requester,
    embedder: embedderFromEnv(shell.env),
    logger: shell.logger,
  };
}
