import type { IndexView } from '@stagecraft/index';
import type { SandboxOptions } from '@stagecraft/sandbox';
import type { MemoryPort } from './memory-tools';

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
}
