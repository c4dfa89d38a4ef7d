import { STAGECRAFT_VERSION, StagecraftError } from '@stagecraft/contracts';
import { openEventStore } from '@stagecraft/event-store';
import type { Requester } from '@stagecraft/messaging';
import type { ShellConfig } from '@stagecraft/service-shell';
import { connectSystem } from '../commands/session';
import { mountConsole } from './mount';

export interface ConsoleFlags {
  port: number;
  host: string;
}

const note = (line: string) => process.stdout.write(`stagecraft console: ${line}\n`);

type System = Awaited<ReturnType<typeof connectSystem>>;

/**
 * `stagecraft console`: the API and the web console on their own. Over a store alone every service runs
 * in this process (so chats start, approvals and cancels are carried out, unfinished runs go on); with
 * a NATS URL it asks the running system, and reads the same store. It listens before the system is up:
 * the reads need only the log (embedded services over a large store take a while to catch up), and a
 * request for the system waits until it is there.
 */
export async function consoleCommand(flags: ConsoleFlags, config: ShellConfig): Promise<void> {
  const log = openEventStore(config.store);
  let system: Promise<System> | null = null;
  const requester = {
    async request(subject, data, options) {
      if (system === null) throw new StagecraftError('UNAVAILABLE', 'the system is starting: retry in a moment');
      return (await system).requester.request(subject, data, options);
    },
  } as Requester;
  let mounted: Awaited<ReturnType<typeof mountConsole>>;
  try {
    // The settings are checked here, before any service starts: a refused start-up leaves nothing running.
    mounted = await mountConsole({
      log,
      requester,
      port: flags.port,
      host: flags.host,
      env: process.env,
      version: STAGECRAFT_VERSION,
      note,
    });
  } catch (error) {
    await log.close();
    throw error;
  }
  system = connectSystem(config, true, { resume: true });
  let connected: System;
  try {
    connected = await system;
  } catch (error) {
    await mounted.close();
    await log.close();
    throw error;
  }
  note(config.natsUrl ? `using the distributed system at ${config.natsUrl}, store ${config.store}` : `embedded, store ${config.store}`);
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await mounted.close();
      await log.close();
      await connected.close();
    })());
  const exit = () => void stop().finally(() => process.exit(0));
  process.once('SIGINT', exit);
  process.once('SIGTERM', exit);
}
