import { SandboxLimits } from './options';

/**
 * `prlimit` arguments that set the per-process limits and then run the command. Inside the sandbox
 * the process count is kept per user namespace, so RLIMIT_NPROC counts the call's own processes, not
 * every process of the service's user; it does not bind uid 0, which is why a pids cgroup backs it.
 */
export function prlimitArgs(limits: SandboxLimits): string[] {
  return [`--as=${limits.memoryBytes}`, `--nproc=${limits.processes}`, `--fsize=${limits.fileSizeBytes}`, '--core=0', '--'];
}
