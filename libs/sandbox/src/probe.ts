import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostLayout } from './bwrap-args';
import { findExecutable, SYSTEM_PATH } from './find-executable';
import { execute, Machine, sandboxedLaunch } from './launch';
import { SandboxOptions } from './options';
import { pidsCgroupParent } from './pids-cgroup';

/**
 * How process counts are bounded: a pids cgroup per call, RLIMIT_NPROC (any user but root), or
 * neither, when only the time limit and the namespace teardown stop a fork bomb.
 */
export type ProcessLimit = 'cgroup' | 'rlimit' | 'none';

export type SandboxStatus =
  { available: true; machine: Machine; cgroupParent: string | null; processLimit: ProcessLimit } | { available: false; reason: string };

const PROBE_TIMEOUT_MS = 10_000;

/** The programs the sandbox needs, or why one is missing. */
function findMachine(options: SandboxOptions): string | Machine {
  const bwrap = findExecutable(options.bwrap, SYSTEM_PATH);
  if (bwrap === null)
    return options.bwrap.startsWith('/')
      ? `${options.bwrap} does not exist or is not executable`
      : `bubblewrap ('${options.bwrap}') is not installed in ${SYSTEM_PATH}`;
  const prlimit = findExecutable('prlimit', SYSTEM_PATH);
  if (prlimit === null) return `prlimit (util-linux) is not installed in ${SYSTEM_PATH}`;
  return { bwrap, prlimit, layout: hostLayout(process.execPath) };
}

/** Starts `true` in a sandbox exactly as a call would; the error bwrap prints is the reason. */
async function trial(machine: Machine, options: SandboxOptions, cgroupParent: string | null): Promise<string | null> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-sandbox-probe-')));
  const output: Buffer[] = [];
  try {
    const request = {
      command: 'true',
      args: [],
      root,
      timeoutMs: PROBE_TIMEOUT_MS,
      killGraceMs: 500,
      onOutput: (chunk: Buffer) => output.push(chunk),
    };
    const finished = await execute(sandboxedLaunch(machine, request, options), request, cgroupParent, options.limits.processes);
    if (finished.exitCode === 0) return null;
    const said = Buffer.concat(output).toString('utf8').trim().slice(0, 500);
    const how =
      finished.spawnError?.message ??
      (finished.timedOut ? 'timed out' : finished.exitCode === null ? `killed by ${finished.signal}` : `exit code ${finished.exitCode}`);
    return `${machine.bwrap} could not start a sandbox (${how})${said ? `: ${said}` : ''}`;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function probe(options: SandboxOptions): Promise<SandboxStatus> {
  const machine = findMachine(options);
  if (typeof machine === 'string') return { available: false, reason: machine };
  let cgroupParent = pidsCgroupParent();
  let failure = await trial(machine, options, cgroupParent);
  // A cgroup we may create but not join (a v2 subtree delegated to someone else) must not cost the sandbox.
  if (failure !== null && cgroupParent !== null) {
    cgroupParent = null;
    failure = await trial(machine, options, null);
  }
  if (failure !== null) return { available: false, reason: failure };
  const processLimit: ProcessLimit = cgroupParent !== null ? 'cgroup' : process.getuid?.() === 0 ? 'none' : 'rlimit';
  return { available: true, machine, cgroupParent, processLimit };
}

const probes = new Map<string, Promise<SandboxStatus>>();

/** Whether a working sandbox exists for these options; asked once per bwrap and network setting, then cached. */
export function probeSandbox(options: SandboxOptions): Promise<SandboxStatus> {
  const key = `${options.bwrap}\0${options.network}`;
  let status = probes.get(key);
  if (!status) {
    status = probe(options);
    probes.set(key, status);
  }
  return status;
}
