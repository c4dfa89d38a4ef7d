"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.LIMITS = exports.DEFAULT_ALLOWED_COMMANDS = void 0;
/** Executables `run_command` may start when the host configures none. */
exports.DEFAULT_ALLOWED_COMMANDS = [
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
exports.LIMITS = {
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
};
//# sourceMappingURL=context.js.map