import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sandboxPath } from './environment';
import { findExecutable, SYSTEM_PATH } from './find-executable';
import { directLaunch, execute, sandboxedLaunch } from './launch';
import { SandboxOptions, UNSAFE_OPT_OUT } from './options';
import { pidsCgroupParent } from './pids-cgroup';
import { Machine } from './launch';
import { probeSandbox } from './probe';
import { KeyedSlots, Release, Slots } from './slots';
import { CommandRequest, Finished } from './supervise';
import { ensureStateDirectory, pinMetadata, quarantineNew, scanMetadata, unpin } from './vcs-metadata';

export interface CommandResult extends Finished {
  /** False only when the operator's opt-out ran the command directly. */
  sandboxed: boolean;
  /** How long the call waited for a free sandbox; that time came out of its timeout. */
  queuedMs: number;
  /** True when the timeout passed while the call was still queued: the command never started. */
  neverStarted?: boolean;
  /** Version-control metadata the command created, and where it was moved (`from -> to`, relative to the root). */
  quarantined: string[];
  /** The search for nested repositories stopped at its bounds: those past them were not protected. */
  nestedMetadataUnchecked?: boolean;
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

const ran = { queuedMs: 0, quarantined: [] as string[] };

async function runUnsandboxed(request: CommandRequest, options: SandboxOptions): Promise<CommandResult> {
  const missing = notOnPath(request, dirname(process.execPath));
  if (missing) return { ...missing, ...ran, sandboxed: false };
  const prlimit = findExecutable('prlimit', SYSTEM_PATH);
  if (prlimit === null)
    throw new SandboxUnavailableError(
      `prlimit (util-linux) is not installed in ${SYSTEM_PATH}, so not even the opt-out's limits can be set`,
    );
  const home = mkdtempSync(join(tmpdir(), 'stagecraft-home-'));
  try {
    const launch = directLaunch(prlimit, dirname(process.execPath), home, request, options);
    return { ...(await execute(launch, request, pidsCgroupParent(), options.limits.processes)), ...ran, sandboxed: false };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The root's version-control metadata is bound read-only, and whatever metadata appeared during the
 * command is quarantined after it. Both walks and the sandbox's mounts assume nothing else of this
 * root runs meanwhile: a concurrent command could swap a directory found by the walk for a symlink
 * before bwrap mounts over it. Hence one sandbox per root at a time (see `perRoot`).
 */
async function runGuarded(machine: Machine, cgroupParent: string | null, request: CommandRequest, options: SandboxOptions) {
  ensureStateDirectory(request.root);
  const before = await scanMetadata(request.root);
  const { pinned, complete } = pinMetadata(before);
  let finished: Finished;
  try {
    finished = await execute(sandboxedLaunch(machine, request, options, pinned), request, cgroupParent, options.limits.processes);
  } finally {
    unpin(pinned);
  }
  const after = await scanMetadata(request.root);
  const quarantined = await quarantineNew(request.root, before, after);
  return { ...finished, quarantined, ...(before.incomplete || !complete ? { nestedMetadataUnchecked: true } : {}) };
}

/** Sandboxes this process runs at once, by capacity (one deployment has one). */
const everywhere = new Map<number, Slots>();
/** One sandbox per project root at a time. */
const perRoot = new KeyedSlots(1);

/**
 * Waits for the root's turn and a free sandbox, within the call's own timeout: a queued call is
 * bounded as a running one is, and one whose caller gives up (cancel) or whose time runs out leaves
 * the queue. Returns the releases (none when it never got its turn) and how long it waited.
 */
async function waitTurn(
  request: CommandRequest,
  options: SandboxOptions,
  root: boolean,
): Promise<{ release: Release[] | null; queuedMs: number }> {
  const started = performance.now();
  const expired = AbortSignal.timeout(request.timeoutMs);
  const signal = request.cancel ? AbortSignal.any([request.cancel, expired]) : expired;
  let slots = everywhere.get(options.concurrency);
  if (!slots) everywhere.set(options.concurrency, (slots = new Slots(options.concurrency)));
  const release: Release[] = [];
  const waited = () => Math.round(performance.now() - started);
  try {
    if (root) release.push(await perRoot.acquire(request.root, signal));
    release.push(await slots.acquire(signal));
    return { release, queuedMs: waited() };
  } catch (error) {
    release.forEach((r) => r());
    if (signal.aborted) return { release: null, queuedMs: waited() };
    throw error;
  }
}

/**
 * Runs one command in a fresh bubblewrap sandbox: its own PID namespace, torn down with the call, so
 * nothing it started outlives it. Without a working sandbox it throws SandboxUnavailableError, unless
 * the operator opted out, in which case the command runs directly and the result says so. At most
 * `options.concurrency` commands run at once in this process; the rest wait their turn.
 */
export async function runSandboxed(request: CommandRequest, options: SandboxOptions): Promise<CommandResult> {
  const status = await probeSandbox(options);
  if (!status.available && !options.unsafeWithoutSandbox) throw new SandboxUnavailableError(status.reason);
  const sandboxed = status.available;
  const missing = notOnPath(request, sandboxed ? status.machine.layout.nodeBinDir : dirname(process.execPath));
  if (missing) return { ...missing, ...ran, sandboxed };
  const turn = await waitTurn(request, options, sandboxed);
  const release = turn.release;
  if (release === null) {
    const timedOut = !request.cancel?.aborted;
    return { exitCode: null, signal: null, timedOut, neverStarted: true, sandboxed, queuedMs: turn.queuedMs, quarantined: [] };
  }
  try {
    const rest = { ...request, timeoutMs: Math.max(1, request.timeoutMs - turn.queuedMs) };
    if (!sandboxed) return { ...(await runUnsandboxed(rest, options)), queuedMs: turn.queuedMs };
    return { ...(await runGuarded(status.machine, status.cgroupParent, rest, options)), sandboxed, queuedMs: turn.queuedMs };
  } finally {
    release.reverse().forEach((r) => r());
  }
}
