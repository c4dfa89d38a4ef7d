import { randomUUID } from 'node:crypto';
import { EventStore } from '@stagecraft/event-store';
import { MessageBus, createRequester } from '@stagecraft/messaging';
import pino from 'pino';
import { ShellConfig } from './config';
import { ShellPorts } from './ports';

/** The one place where wall-clock time and random ids enter the system. */
export function composePorts(
  bus: MessageBus,
  store: EventStore | null,
  config: Pick<ShellConfig, 'prefix' | 'requestTimeoutMs' | 'logLevel' | 'projectRoots'>,
  env: Readonly<Record<string, string | undefined>>,
): ShellPorts {
  const newId = () => randomUUID();
  const clock = () => new Date();
  return {
    bus,
    store,
    prefix: config.prefix,
    clock,
    newId,
    requester: createRequester(bus, { prefix: config.prefix, newId, timeoutMs: config.requestTimeoutMs }),
    logger: pino({ level: config.logLevel, base: { pid: process.pid } }, pino.destination(2)),
    startedAt: clock(),
    projectRoots: config.projectRoots,
    env,
  };
}
