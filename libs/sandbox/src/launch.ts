import { bwrapArgs, HostLayout, PinnedPath } from './bwrap-args';
import { sandboxEnvironment } from './environment';
import { prlimitArgs } from './limits';
import { SandboxOptions } from './options';
import { createCallCgroup } from './pids-cgroup';
import { CommandRequest, Finished, Launch, supervise } from './supervise';

/** HOME inside the sandbox: on the private /tmp, so it is writable and gone after the call. */
export const SANDBOX_HOME = '/tmp/sandbox-home';

const FIRST_PINNED_FD = 4;

/** The host programs the sandbox is built from, found once. */
export interface Machine {
  bwrap: string;
  prlimit: string;
  layout: HostLayout;
}

/**
 * bwrap around prlimit around the command; prlimit runs inside, so the limits count the call's own
 * processes. `readOnly`: entries inside the root to bind read-only, as open descriptors (see vcs-metadata).
 */
export function sandboxedLaunch(
  machine: Machine,
  request: CommandRequest,
  options: SandboxOptions,
  readOnly: readonly PinnedPath[] = [],
): Launch {
  const env = sandboxEnvironment({
    root: request.root,
    home: SANDBOX_HOME,
    nodeBinDir: machine.layout.nodeBinDir,
    passEnv: options.passEnv,
  });
  // The descriptors reach bwrap as 4, 5, …, after stdin, stdout, stderr and --info-fd.
  const pinned = readOnly.map(({ path }, i) => ({ path, fd: FIRST_PINNED_FD + i }));
  const plan = {
    root: request.root,
    home: SANDBOX_HOME,
    network: options.network,
    env,
    tmpBytes: options.limits.tmpBytes,
    readOnly: pinned,
  };
  // bwrap itself gets the clean environment too: /proc/1/environ inside shows what bwrap started with.
  return {
    file: machine.bwrap,
    argv: [
      '--info-fd',
      '3',
      ...bwrapArgs(machine.layout, plan),
      machine.prlimit,
      ...prlimitArgs(options.limits),
      request.command,
      ...request.args,
    ],
    env,
    infoFd: true,
    fds: readOnly.map(({ fd }) => fd),
  };
}

/** The operator's opt-out: no namespaces, but still the clean environment and the limits. */
export function directLaunch(prlimit: string, nodeBinDir: string, home: string, request: CommandRequest, options: SandboxOptions): Launch {
  const env = sandboxEnvironment({ root: request.root, home, nodeBinDir, passEnv: options.passEnv });
  return { file: prlimit, argv: [...prlimitArgs(options.limits), request.command, ...request.args], env };
}

// `$0` is the cgroup's procs file: sh moves itself in, then becomes the command, before anything forks.
const JOIN_CGROUP = 'echo $$ > "$0" && exec "$@"';

/** Runs a launch, inside its own pids cgroup when the machine has one, and removes that cgroup after. */
export async function execute(
  launch: Launch,
  request: CommandRequest,
  cgroupParent: string | null,
  maxProcesses: number,
): Promise<Finished> {
  if (cgroupParent === null) return supervise(launch, request);
  const cgroup = createCallCgroup(cgroupParent, maxProcesses);
  try {
    return await supervise(
      { ...launch, file: '/bin/sh', argv: ['-c', JOIN_CGROUP, cgroup.procsFile, launch.file, ...launch.argv] },
      request,
    );
  } finally {
    await cgroup.dispose();
  }
}
