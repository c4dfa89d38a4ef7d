import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sandboxPath } from './environment';
import { findExecutable, SYSTEM_PATH } from './find-executable';
import { directLaunch, execute, sandboxedLaunch } from './launch';
import { SandboxOptions, UNSAFE_OPT_OUT } from './options';
import { pidsCgroupParent } from './pids-cgroup';
import { probeSandbox } from './probe';
import { CommandRequest, Finished } from './supervise';

export interface CommandResult extends Finished {
  /** False only when the operator's opt-out ran the command directly. */
  sandboxed: boolean;
}

/** No working sandbox and no opt-out: the command is refused, with what the operator can do about it. */
export class SandboxUnavailableError extends Error {
  readonly remedy = `install bubblewrap (apt-get install bubblewrap) and allow user namespaces where the service runs (on Kubernetes: hostUsers: false with procMount: Unmasked, and a seccomp/AppArmor profile that permits unshare); or, accepting that commands then run with the service's own file-system rights, set ${UNSAFE_OPT_OUT}=1`;

  constructor(readonly reason: string) {
    super(`no working command sandbox: ${reason}`);
    this.name = 'SandboxUnavailableError';
  }
}

/**
 * The sandbox binds every directory at its own path, so the host answers whether the command exists
 * inside, before anything starts; bwrap would only say so in its own words, as the command's output.
 */
function notOnPath(request: CommandRequest, nodeBinDir: string): Finished | null {
  if (findExecutable(request.command, sandboxPath(request.root, nodeBinDir)) !== null) return null;
  const error: NodeJS.ErrnoException = new Error(`spawn ${request.command} ENOENT`);
  error.code = 'ENOENT';
  return { exitCode: null, signal: null, timedOut: false, spawnError: error };
}

async function runUnsandboxed(request: CommandRequest, options: SandboxOptions): Promise<CommandResult> {
  const missing = notOnPath(request, dirname(process.execPath));
  if (missing) return { ...missing, sandboxed: false };
  const prlimit = findExecutable('prlimit', SYSTEM_PATH);
  if (prlimit === null)
    throw new SandboxUnavailableError(
      `prlimit (util-linux) is not installed in ${SYSTEM_PATH}, so not even the opt-out's limits can be set`,
    );
  const home = mkdtempSync(join(tmpdir(), 'stagecraft-home-'));
  try {
    const launch = directLaunch(prlimit, dirname(process.execPath), home, request, options);
    return { ...(await execute(launch, request, pidsCgroupParent(), options.limits.processes)), sandboxed: false };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Runs one command in a fresh bubblewrap sandbox: its own PID namespace, torn down with the call, so
 * nothing it started outlives it. Without a working sandbox it throws SandboxUnavailableError, unless
 * the operator opted out, in which case the command runs directly and the result says so.
 */
export async function runSandboxed(request: CommandRequest, options: SandboxOptions): Promise<CommandResult> {
  const status = await probeSandbox(options);
  if (!status.available) {
    if (!options.unsafeWithoutSandbox) throw new SandboxUnavailableError(status.reason);
    return runUnsandboxed(request, options);
  }
  const missing = notOnPath(request, status.machine.layout.nodeBinDir);
  if (missing) return { ...missing, sandboxed: true };
  const launch = sandboxedLaunch(status.machine, request, options);
  return { ...(await execute(launch, request, status.cgroupParent, options.limits.processes)), sandboxed: true };
}
