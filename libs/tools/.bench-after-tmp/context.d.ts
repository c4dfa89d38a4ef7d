import type { IndexView } from '@stagecraft/index';
import type { SandboxOptions } from '@stagecraft/sandbox';
import type { MemoryPort } from './memory-tools';
/** Executables `run_command` may start when the host configures none. */
export declare const DEFAULT_ALLOWED_COMMANDS: readonly string[];
export declare const LIMITS: {
    readonly readFileBytes: number;
    /** Larger files are refused whole; a line range or search_code reaches into them instead. */
    readonly readFileMaxSize: number;
    readonly listDirEntries: 2000;
    readonly searchFileMaxSize: number;
    readonly searchLineChars: 300;
    readonly commandOutputBytes: number;
    readonly commandTimeoutMs: 120000;
    readonly commandDefaultTimeoutMs: 30000;
    /** After SIGTERM, how long a process group gets before SIGKILL. */
    readonly commandKillGraceMs: 2000;
};
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
//# sourceMappingURL=context.d.ts.map