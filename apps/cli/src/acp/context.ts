import type { ApprovalPolicy, EditorBridge, UserMode } from '@stagecraft/contracts';
import type { EventReader } from '@stagecraft/event-store';
import type { MessageBus, Requester } from '@stagecraft/messaging';
import type { ShellConfig } from '@stagecraft/service-shell';

/** What the ACP agent talks to: the system's subjects, like every other client, and the log a loaded session is replayed from. */
export interface AcpContext {
  bus: MessageBus;
  requester: Requester;
  config: ShellConfig;
  /** The directories a session's `cwd` may name; undefined: any (no --root, no STAGECRAFT_PROJECT_ROOTS). */
  allowedRoots?: readonly string[];
  log: EventReader;
  /** Which tool calls wait for the person (`--approve`): asked with `session/request_permission`. */
  approve: ApprovalPolicy;
}

/** A session is a conversation: its id is the conversation's, so that it can be loaded after a restart. */
export interface AcpSession {
  id: string;
  /** The project root (its real path), checked against the allowed roots. */
  cwd: string;
  /** Set by the client only (`session/set_mode`, the `reasoning` option); each run records them in RunStarted. */
  mode: UserMode;
  reasoning: boolean;
  /** The run of the prompt in progress, if any. */
  running: { runId: string } | null;
  /** Set when the client reads and writes files for this session: its runs name it, and it serves them. */
  editor: { bridge: EditorBridge; close(): void } | null;
}
