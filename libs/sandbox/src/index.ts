/** Running a command inside the project root under bubblewrap: limits, the environment it sees, and what it may touch. */
export { DEFAULT_SANDBOX_OPTIONS, UNSAFE_OPT_OUT, sandboxOptionsFromEnv } from './options';
export type { SandboxLimits, SandboxOptions } from './options';
export { runSandboxed, SandboxUnavailableError } from './run-sandboxed';
export type { CommandResult } from './run-sandboxed';
export type { CommandRequest } from './supervise';
export { probeSandbox } from './probe';
export type { ProcessLimit, SandboxStatus } from './probe';
export { REDACTION_MARK, createScrubber, redactionsIn, secretsFromEnv } from './scrubber';
export { bwrapArgs, hostLayout } from './bwrap-args';
export type { BwrapPlan, HostLayout } from './bwrap-args';
export { sandboxEnvironment } from './environment';
export { PROTECTED_METADATA, isProtectedMetadata } from './vcs-metadata';
