import type { MemoryRecallReply, MemoryReflectReply, MemoryRetainReply, MemoryTier } from '@stagecraft/contracts';
import type { IndexView } from '@stagecraft/index';
import type { SandboxOptions } from '@stagecraft/sandbox';

/** Executables `run_command` may start when the host configures none. */
export const DEFAULT_ALLOWED_COMMANDS: readonly string[] = [
  'node',
  'npm',
  'npx',
  'git',
  'ls',
  'cat',
  'grep',
  'tsc',
  'jest',
  'python3',
  'make',
];

export const LIMITS = {
  readFileBytes: 200 * 1024,
  /** Larger files are refused whole; a line range or search_code reaches into them instead. */
  readFileMaxSize: 32 * 1024 * 1024,
  listDirEntries: 2000,
  searchFileMaxSize: 2 * 1024 * 1024,
  searchLineChars: 300,
  commandOutputBytes: 64 * 1024,
  commandTimeoutMs: 120_000,
  commandDefaultTimeoutMs: 30_000,
  /** After SIGTERM, how long a process group gets before SIGKILL. */
  commandKillGraceMs: 2_000,
} as const;

/** Everything a tool may touch: one project root, a progress channel, the command allow-list and its sandbox. */
export interface ToolContext {
  /** Absolute real path of the project root; every path argument is resolved inside it. */
  root: string;
  allowedCommands: readonly string[];
  /** One short human-readable line per step; the service numbers and publishes them. */
  progress(message: string): void;
  /** Called with the process group leader's pid when a command starts (the service notes it for crash recovery). */
  onSpawn?(pid: number): void;
  /** How `run_command` is confined; DEFAULT_SANDBOX_OPTIONS of @stagecraft/sandbox (bubblewrap, no network) when absent. */
  sandbox?: SandboxOptions;
  /** The codebase index of the root as its owner keeps it, for the index tools; without it they index the tree on the spot. */
  index?: () => Promise<IndexView>;
  /** The memory service, in the project's scope, for the memory tools; they fail cleanly without it. */
  memory?: MemoryPort;
  /** Vectors for texts (`STAGECRAFT_EMBEDDING_MODEL`): `search_index` ranks by meaning as well as by words when given. */
  embed?: (texts: string[]) => Promise<number[][]>;
  /** The recorded output of an earlier call of the same run, for `read_tool_output`; null for any other call. */
  toolOutput?: (callId: string) => Promise<string | null>;
  /** Where the final bytes of `read_file` and `write_file` go (an editor's buffers); the disk when absent. */
  files?: FileAccess;
}

/**
 * The last step of a read or a write, once the tool has checked the path (inside the root, not a
 * forbidden one) and the file (regular, text, not too big) on disk: an editor may hold an unsaved
 * buffer of it, and may want the write to go through it (docs/decisions/0061).
 */
export interface FileAccess {
  /** The text the editor has for this file; null when it has none (the disk's text is used). */
  readText(absolute: string): Promise<string | null>;
  /** Writes the whole text through the editor instead of the disk. */
  writeText(absolute: string, content: string): Promise<void>;
}

/**
 * How the memory tools reach the memory service: the tool service answers them with `memory.recall`,
 * `memory.retain` and `memory.reflect` in the project's scope, filling in the source run and an id
 * derived from the call (so a retried call retains once).
 */
export interface MemoryPort {
  /** The project's memory scope, derived from its root. */
  scope: string;
  recall(request: { query: string; tier?: MemoryTier; limit: number }): Promise<MemoryRecallReply>;
  retain(request: { tier: MemoryTier; content: string; tags: string[] }): Promise<MemoryRetainReply>;
  reflect(request: { query: string }): Promise<MemoryReflectReply>;
}
