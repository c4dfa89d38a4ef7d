import type { Server } from 'node:http';
import { toErrorReply } from '@stagecraft/contracts';
import { EventStore, openEventStore } from '@stagecraft/event-store';
import { MessageBus, connectNatsBus } from '@stagecraft/messaging';
import { createLogger, metricsEndpoint, stopTracing } from '@stagecraft/telemetry';
import type { Logger } from 'pino';
import { ShellConfig, loadShellConfig } from './config';
import { composePorts } from './compose-ports';
import { LifecyclePhase, PROCESS_EXIT, exitCodeOfStartFailure, notServingChecks, within } from './lifecycle';
import { ProcessInstance, ServiceDefinition, processInstance } from './ports';
import { startProbeServer } from './probe-server';
import { DependencyTargets, checkDependencies, dependencyTargets } from './readiness';
import { RunningServices, startServices } from './start-services';

/**
 * What a service process does to and asks of the OS process it runs in, given by the app's `main`:
 * the library never reaches for `process` itself (its environment, identity, signals, exit).
 */
export interface ServiceProcessHooks {
  env: Record<string, string | undefined>;
  instance: ProcessInstance;
  /** Ends the process with `code`. */
  exit(code: number): never;
  /** Calls `stop` once, with the signal's name, on SIGTERM or SIGINT. */
  onStopSignal(stop: (signal: string) => void): void;
  /** From now on, a rejection nobody awaited goes to `handle` instead of ending the process. */
  onUnhandledRejection(handle: (reason: unknown) => void): void;
  /** One line for a person, on standard error. */
  writeError(line: string): void;
}

/**
 * The hooks of the process an app's `main` hands over (`processHooks(process)`): the library never
 * reaches for the global process itself, so a test or an embedding program can pass its own.
 */
export function processHooks(proc: NodeJS.Process): ServiceProcessHooks {
  return {
    env: proc.env,
    instance: processInstance(proc),
    exit: (code) => proc.exit(code),
    onStopSignal: (stop) => {
      proc.once('SIGTERM', () => stop('SIGTERM'));
      proc.once('SIGINT', () => stop('SIGINT'));
    },
    onUnhandledRejection: (handle) => proc.on('unhandledRejection', handle),
    writeError: (line) => proc.stderr.write(line),
  };
}

/**
 * The entry point of a service app: `define` builds the service from the environment (a bad variable
 * stops the process with a line naming it, never a stack trace), then `runServiceProcess`.
 */
export function serviceMain(name: string, define: () => ServiceDefinition, hooks: ServiceProcessHooks): void {
  let definition: ServiceDefinition;
  try {
    definition = define();
  } catch (error) {
    hooks.writeError(`${name}: ${toErrorReply(error).message}\n`);
    hooks.exit(PROCESS_EXIT.failed);
  }
  runServiceProcess(definition, hooks).catch((error: unknown) => {
    const reply = toErrorReply(error);
    hooks.writeError(`${name}: ${reply.message}\n`);
    hooks.exit(exitCodeOfStartFailure(reply.code));
  });
}

function loadConfig(definition: ServiceDefinition, env: Record<string, string | undefined>): ShellConfig & { natsUrl: string } {
  const config = loadShellConfig(env);
  if (!config.natsUrl) throw new Error('invalid configuration: NATS_URL: required for a service process');
  // Any caller on the bus could otherwise name any directory of the host, "/" included.
  if (definition.touchesProjects && !config.projectRoots?.length) {
    throw new Error(
      'invalid configuration: STAGECRAFT_PROJECT_ROOTS: required for a service process that works on projects (the directories requests may name)',
    );
  }
  return { ...config, natsUrl: config.natsUrl };
}

/** What a started service process has to check and to close. */
interface Serving {
  bus: MessageBus;
  store: EventStore | null;
  running: RunningServices;
  targets: DependencyTargets;
}

/**
 * The whole life of one service in the distributed deployment: read the environment, open the probes,
 * wait for NATS (retrying with backoff up to STAGECRAFT_NATS_CONNECT_TIMEOUT_MS, not ready meanwhile),
 * serve, and stop on SIGTERM or SIGINT within STAGECRAFT_SHUTDOWN_TIMEOUT_MS whatever NATS does.
 * Exits 0 on a signal, 3 when NATS never came (one structured line), 1 on any other start-up failure.
 */
export async function runServiceProcess(definition: ServiceDefinition, hooks: ServiceProcessHooks): Promise<void> {
  const { env } = hooks;
  let config: ShellConfig & { natsUrl: string };
  try {
    config = loadConfig(definition, env);
  } catch (error) {
    hooks.writeError(`${definition.name}: ${(error as Error).message}\n`);
    hooks.exit(PROCESS_EXIT.failed);
  }
  const logger = createLogger({ service: definition.name, level: config.logLevel });
  let phase: LifecyclePhase = { kind: 'connecting', address: config.natsUrl };
  let serving: Serving | undefined;
  const waiting = new AbortController();

  const fail = (error: unknown, message: string): never => {
    const reply = toErrorReply(error);
    logger.fatal({ code: reply.code, nats: config.natsUrl }, `${message}: ${reply.message}`);
    return hooks.exit(exitCodeOfStartFailure(reply.code));
  };

  let probes: Server | null = null;
  try {
    probes =
      config.healthPort > 0
        ? await startProbeServer({
            port: config.healthPort,
            host: config.healthHost,
            readiness: () =>
              phase.kind === 'serving' ? checkDependencies(serving?.targets ?? {}) : Promise.resolve(notServingChecks(phase)),
            metrics: metricsEndpoint(),
          })
        : null;
  } catch (error) {
    fail(error, `cannot serve probes on ${config.healthHost}:${config.healthPort} (STAGECRAFT_HEALTH_PORT)`);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const wasConnecting = phase.kind === 'connecting';
    phase = { kind: 'stopping' };
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, wasConnecting ? 'stopping before NATS was reached' : 'service stopping');
    waiting.abort();
    ignoreDeadConnectionErrors(hooks, logger);
    const finished = await within(config.shutdownTimeoutMs, shutDown(serving, config.shutdownTimeoutMs, logger));
    if (!finished)
      logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'stop took longer than STAGECRAFT_SHUTDOWN_TIMEOUT_MS; leaving the rest');
    probes?.close();
    hooks.exit(PROCESS_EXIT.done);
  };
  hooks.onStopSignal((signal) => void stop(signal));

  let bus: MessageBus;
  try {
    bus = await connectNatsBus({ servers: config.natsUrl, auth: config.natsAuth }, `stagecraft-${definition.name}`, {
      retry: {
        budgetMs: config.natsConnectTimeoutMs,
        signal: waiting.signal,
        onRetry: (failed) => {
          if (phase.kind === 'connecting') phase = { ...phase, lastAttempt: failed };
          logger.warn(failed, 'nats not reachable; trying again');
        },
      },
    });
  } catch (error) {
    if (stopping) return; // the signal ended the wait; `stop` exits
    return fail(error, `nats unreachable within STAGECRAFT_NATS_CONNECT_TIMEOUT_MS (${config.natsConnectTimeoutMs} ms)`);
  }
  let store: EventStore | null = null;
  try {
    store = definition.usesStore ? await openEventStore(config.store) : null;
    const ports = composePorts(bus, store, config, env, hooks.instance, definition.name, logger);
    const running = await startServices([definition], ports);
    const targets = dependencyTargets({ services: [definition], store, storeAddress: config.store, bus, natsAddress: config.natsUrl, env });
    serving = { bus, store, running, targets };
  } catch (error) {
    await bus.close();
    await store?.close().catch(() => undefined);
    if (stopping) return;
    return fail(error, 'cannot start');
  }
  if (stopping) return;
  phase = { kind: 'serving' };
  logger.info({ nats: config.natsUrl, store: store?.kind ?? null, healthPort: config.healthPort }, 'service ready');
}

/**
 * Stops taking requests; those in flight get half the time to finish (the rest are named in a log
 * line); then the modules, the connection (drained when the server is there, closed when not), the
 * store and the trace exporter. No step's failure stops the next.
 */
async function shutDown(serving: Serving | undefined, timeoutMs: number, logger: Logger): Promise<void> {
  if (serving) {
    const graceMs = Math.floor(timeoutMs / 2);
    const onAbandoned = (abandoned: string[]) => logger.warn({ abandoned, graceMs }, 'requests still in flight abandoned');
    await serving.running
      .close({ graceMs, onAbandoned })
      .catch((error: unknown) => logger.warn({ err: toErrorReply(error).message }, 'services did not close cleanly'));
    await serving.bus.close();
    await serving.store
      ?.close()
      .catch((error: unknown) => logger.warn({ err: toErrorReply(error).message }, 'store did not close cleanly'));
  }
  // Spans still buffered are exported before the process ends.
  await stopTracing().catch(() => undefined);
}

/**
 * While stopping, a connection whose server is gone rejects whatever still waited on it (a flush,
 * a pending request of a module closing); those are logged, not allowed to turn a stop into exit 1.
 */
function ignoreDeadConnectionErrors(hooks: ServiceProcessHooks, logger: Logger): void {
  hooks.onUnhandledRejection((reason) => logger.warn({ err: toErrorReply(reason).message }, 'ignored while stopping'));
}
