import { randomUUID } from 'node:crypto';
import { EventStore } from '@stagecraft/event-store';
import { MessageBus, createRequester, watchFailedRequests } from '@stagecraft/messaging';
import { createLogger, startTracingFromEnv } from '@stagecraft/telemetry';
import { Logger } from 'pino';
import { ShellConfig } from './config';
import { ProcessInstance, ShellPorts } from './ports';

/**
 * The one place where wall-clock time and random ids enter the system, and where a process starts
 * tracing (when the `OTEL_*` variables ask for it) and makes its logger. `service` names the process
 * in logs and traces: one service's name, or `stagecraft` for several hosted together.
 */
export function composePorts(
  bus: MessageBus,
  store: EventStore | null,
  config: Pick<ShellConfig, 'prefix' | 'requestTimeoutMs' | 'logLevel' | 'projectRoots'>,
  env: Readonly<Record<string, string | undefined>>,
  instance: ProcessInstance,
  service = 'stagecraft',
  /** The process's logger when it made one before it had a bus (to log its start-up). */
  logger: Logger = createLogger({ service, level: config.logLevel }),
): ShellPorts {
  startTracingFromEnv(service, env);
  const newId = () => randomUUID();
  const clock = () => new Date();
  logBusTroubles(bus, logger);
  return {
    bus,
    store,
    prefix: config.prefix,
    clock,
    newId,
    requester: createRequester(bus, { prefix: config.prefix, newId, timeoutMs: config.requestTimeoutMs }),
    logger,
    startedAt: clock(),
    projectRoots: config.projectRoots,
    env,
    instance,
  };
}

/** Every request this process answered with an error, and every time its NATS connection drops or comes back. */
function logBusTroubles(bus: MessageBus, logger: Logger): void {
  watchFailedRequests(bus, (failure) => logger.warn(failure, 'request failed'));
  bus.watchConnection?.((event) => {
    const fields = { server: event.server, detail: event.detail };
    if (event.type === 'reconnect') logger.info(fields, 'nats connection restored');
    else if (event.type === 'disconnect') logger.warn(fields, 'nats connection lost');
    else logger.error(fields, 'nats server reported an error');
  });
}
