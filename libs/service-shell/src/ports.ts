import { hostname } from 'node:os';
import { ServiceName } from '@stagecraft/contracts';
import { EventStore } from '@stagecraft/event-store';
import { MessageBus, Requester } from '@stagecraft/messaging';
import { Logger } from 'pino';
import { Clock, NewId } from './tokens';

/**
 * Who this process is, and the one way it may end itself: given by the app's `main` (or, for services
 * hosted inside another program, by that program), so no library reads the process it runs in.
 */
export interface ProcessInstance {
  hostname: string;
  pid: number;
  /** Ends the process at once, as a power cut would (fault-injection tests only). */
  crash(): void;
}

/** The process `proc` as the instance its services see: its host, its pid, and a crash that kills it at once. */
export const processInstance = (proc: NodeJS.Process): ProcessInstance => ({
  hostname: hostname(),
  pid: proc.pid,
  crash: () => proc.kill(proc.pid, 'SIGKILL'),
});

/** Everything a service module may be given by its composition root. */
export interface ShellPorts {
  bus: MessageBus;
  requester: Requester;
  store: EventStore | null;
  prefix: string;
  clock: Clock;
  newId: NewId;
  logger: Logger;
  startedAt: Date;
  /** The directories a request's project root may name; undefined: any (see ShellConfig). */
  projectRoots?: readonly string[];
  /** The environment the composition root was given (apps pass `process.env`; tests usually pass none). */
  env: Readonly<Record<string, string | undefined>>;
  instance: ProcessInstance;
}

/** What each service lib exports (made by `defineService`) so that one process can host it alone or next to the others. */
export interface ServiceDefinition {
  name: ServiceName;
  /** The Nest module `defineService` generated from the service's table: wiring only. */
  module: new (...args: any[]) => unknown;
  usesStore: boolean;
  /**
   * Works on a request's project (its files, or its runs and memories), so a process serving it over a
   * bus needs STAGECRAFT_PROJECT_ROOTS: any caller could otherwise name any project.
   */
  touchesProjects?: boolean;
}
