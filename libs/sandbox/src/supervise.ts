import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Readable } from 'node:stream';

/** One command to run: what, where, for how long, and where its output goes. */
export interface CommandRequest {
  /** An executable name, looked up on the sandbox's PATH (never a shell line). */
  command: string;
  args: readonly string[];
  /** Absolute real path of the project root: the working directory and the one writable directory. */
  root: string;
  timeoutMs: number;
  /** After SIGTERM at the timeout, how long before SIGKILL. */
  killGraceMs: number;
  /** stdout and stderr, interleaved as they arrive. */
  onOutput(chunk: Buffer): void;
  /** The host pid of the process started (bwrap's, when sandboxed). */
  onStart?(pid: number): void;
  /** Fires when the caller gives up: a queued call leaves the queue, a running one is killed. */
  cancel?: AbortSignal;
}

export interface Finished {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  spawnError?: NodeJS.ErrnoException;
}

export interface Launch {
  file: string;
  argv: readonly string[];
  env: Record<string, string>;
  /** bwrap writes `{"child-pid": N}` to fd 3 (`--info-fd 3`): the host pid of the namespace's init. */
  infoFd?: boolean;
  /** Open descriptors the process inherits as 4, 5, …: the version-control metadata to bind read-only. */
  fds?: readonly number[];
}

/** The whole process group: bwrap and, without a sandbox, a test runner's workers or a script's children. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

const gone = (pid: number) => {
  try {
    return /^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
};

/**
 * A PID namespace's init exits only after the kernel has killed and reaped everything inside, so once
 * it is gone (or a zombie) nothing the command started is left. Bounded: the call must end regardless.
 */
async function namespaceGone(info: Promise<number | null>): Promise<void> {
  const pid = await info;
  for (let waited = 0; pid !== null && !gone(pid) && waited < 2_000; waited += 10) await sleep(10);
}

function childPid(stream: Readable | null | undefined): Promise<number | null> {
  if (!stream) return Promise.resolve(null);
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    stream.on('error', () => resolve(null));
    stream.on('close', () => resolve(Number(/"child-pid":\s*(\d+)/.exec(text)?.[1]) || null));
  });
}

/** Starts a process in its own group, enforces the timeout, and kills the group when it ends. */
export async function supervise(launch: Launch, request: CommandRequest): Promise<Finished> {
  const child = spawn(launch.file, launch.argv, {
    cwd: request.root,
    env: launch.env,
    shell: false,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', launch.infoFd ? 'pipe' : 'ignore', ...(launch.fds ?? [])],
  });
  const info = childPid(launch.infoFd ? (child.stdio[3] as Readable) : null);
  const finished = await watch(child, request);
  await namespaceGone(info);
  return finished;
}

function watch(child: ChildProcess, request: CommandRequest): Promise<Finished> {
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const cancelled = () => killGroup(child, 'SIGKILL');
    const settle = (finished: Finished) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      request.cancel?.removeEventListener('abort', cancelled);
      killGroup(child, 'SIGKILL');
      resolve(finished);
    };
    timers.push(
      setTimeout(() => {
        timedOut = true;
        killGroup(child, 'SIGTERM');
        timers.push(setTimeout(() => killGroup(child, 'SIGKILL'), request.killGraceMs));
      }, request.timeoutMs),
    );
    request.cancel?.addEventListener('abort', cancelled, { once: true });
    child.stdout?.on('data', (chunk: Buffer) => request.onOutput(chunk));
    child.stderr?.on('data', (chunk: Buffer) => request.onOutput(chunk));
    child.on('spawn', () => request.onStart?.(child.pid as number));
    child.on('error', (error) => settle({ exitCode: null, signal: null, timedOut, spawnError: error }));
    child.on('close', (exitCode, signal) => settle({ exitCode, signal, timedOut }));
  });
}
