import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import type { ApprovalPolicy } from '@stagecraft/contracts';
import { openEventStore } from '@stagecraft/event-store';
import type { ShellConfig } from '@stagecraft/service-shell';
import { connectSystem } from '../commands/session';
import { allowedRootsOf } from '../mcp/roots';
import { createAcpAgent } from './agent';

export interface AcpFlags {
  root?: string;
  approve: ApprovalPolicy;
}

const note = (line: string) => process.stderr.write(`stagecraft acp: ${line}\n`);

/**
 * Stdout is the protocol: the protocol writes through the real stdout, and anything else that writes
 * to it (a stray log line) lands on stderr instead of corrupting a JSON-RPC message.
 */
function claimStdout(): WritableStream<Uint8Array> {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    (process.stderr.write as (...args: unknown[]) => boolean)(chunk, ...rest)) as typeof process.stdout.write;
  console.log = console.error;
  console.info = console.error;
  return new WritableStream<Uint8Array>({
    write: (chunk) => new Promise((done, failed) => void write(chunk, (error) => (error ? failed(error) : done()))),
  });
}

/** `stagecraft acp`: an Agent Client Protocol agent on stdio, embedded unless a NATS URL is given. */
export async function serveAcp(flags: AcpFlags, config: ShellConfig, version: string): Promise<void> {
  const output = claimStdout();
  const allowedRoots = allowedRootsOf(flags.root, config.projectRoots, false);
  // Resumed: an agent lives on, so it goes on with runs a crash left unfinished.
  const system = await connectSystem({ ...config, projectRoots: allowedRoots ?? config.projectRoots }, true, { resume: true });
  const log = openEventStore(config.store);
  const app = createAcpAgent({ bus: system.bus, requester: system.requester, config, allowedRoots, log, approve: flags.approve }, version);
  note(config.natsUrl ? `using the distributed system at ${config.natsUrl}` : `embedded, store ${config.store}`);
  note(
    allowedRoots
      ? `sessions may work in ${allowedRoots.map((r) => resolve(r)).join(', ')}`
      : 'sessions may work in any directory (no --root)',
  );
  const connection = app.connect(ndJsonStream(output, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      connection.close();
      await log.close();
      await system.close();
    })());
  const exit = () => void stop().finally(() => process.exit(0));
  process.once('SIGINT', exit);
  process.once('SIGTERM', exit);
  note('serving ACP on stdio');
  // The client closing its end of the pipe ends the agent.
  await connection.closed;
  exit();
}
