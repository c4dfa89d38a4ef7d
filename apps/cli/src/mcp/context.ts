import type { EventReader } from '@stagecraft/event-store';
import type { MessageBus, Requester } from '@stagecraft/messaging';

/** What the MCP tools and resources talk to: the system's subjects, like every other client, and the log that `runs show` reads. */
export interface McpContext {
  bus: MessageBus;
  requester: Requester;
  prefix: string;
  /** The project root of a call that names none (`--root`); null when the server was started without one. */
  root: string | null;
  /** The directories (and their subtrees) a call's root may name; undefined: any (stdio without --root). */
  allowedRoots?: readonly string[];
  /** The event log (`--store`), read for run timelines. */
  log: EventReader;
  /** How long `chat` follows a run before it answers with the run still going. */
  chatTimeoutMs: number;
}
