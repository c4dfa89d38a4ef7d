import { ChildProcess, spawn } from 'node:child_process';
import { z } from 'zod';
import { LIMITS, ToolContext } from '../context';
import { ToolFailureError, ToolOutcome, failed, succeeded } from '../outcome';
import { CappedOutput } from './capped-output';

const noNul = [(s: string) => !s.includes('\0'), 'must not contain a NUL byte'] as const;

export const RunCommandArgs = z.strictObject({
  command: z.string().min(1).refine(...noNul).describe('an executable from the allow-list, by name (no path, no shell syntax)'),
  args: z.array(z.string().refine(...noNul)).default([]).describe('arguments, passed as they are: no shell expansion, quoting or pipes'),
  timeoutMs: z.number().int().min(1).max(LIMITS.commandTimeoutMs).default(LIMITS.commandDefaultTimeoutMs),
});
export type RunCommandArgs = z.infer<typeof RunCommandArgs>;

interface Finished {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  spawnError?: NodeJS.ErrnoException;
}

/** The whole process group: a test runner's workers and a shell script's children stop with it. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function run(args: RunCommandArgs, root: string, output: CappedOutput, onStart: (pid: number) => void): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(args.command, args.args, { cwd: root, shell: false, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let timedOut = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const settle = (finished: Finished) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      killGroup(child, 'SIGKILL');
      resolve(finished);
    };
    timers.push(
      setTimeout(() => {
        timedOut = true;
        killGroup(child, 'SIGTERM');
        timers.push(setTimeout(() => killGroup(child, 'SIGKILL'), LIMITS.commandKillGraceMs));
      }, args.timeoutMs),
    );
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('spawn', () => onStart(child.pid as number));
    child.on('error', (error) => settle({ exitCode: null, signal: null, timedOut, spawnError: error }));
    child.on('close', (exitCode, signal) => settle({ exitCode, signal, timedOut }));
  });
}

/** Runs one allow-listed executable in the project root, without a shell; stdout and stderr interleaved and capped. */
export async function runCommandTool(args: RunCommandArgs, context: ToolContext): Promise<ToolOutcome> {
  const line = ['$', args.command, ...args.args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a)))].join(' ');
  if (/[\\/]/.test(args.command) || !context.allowedCommands.includes(args.command)) {
    throw new ToolFailureError({
      kind: 'COMMAND_NOT_ALLOWED',
      problem: `'${args.command}' is not an allowed command`,
      retry: `use one of: ${context.allowedCommands.join(', ')} (by name, without a path); for a project script use npm run <script>`,
    });
  }
  const output = new CappedOutput(LIMITS.commandOutputBytes);
  const finished = await run(args, context.root, output, (pid) => context.progress(`started ${args.command} (pid ${pid})`));
  if (finished.spawnError) {
    const missing = finished.spawnError.code === 'ENOENT';
    throw new ToolFailureError({
      kind: missing ? 'COMMAND_NOT_FOUND' : 'COMMAND_FAILED',
      problem: missing ? `'${args.command}' is allowed but not installed on this machine` : `'${args.command}' could not start: ${finished.spawnError.message}`,
      retry: 'use another allowed command that does the same job',
    });
  }
  const status = finished.timedOut ? `killed after ${args.timeoutMs} ms (timeout)` : finished.exitCode === null ? `killed by ${finished.signal}` : `exit code: ${finished.exitCode}`;
  context.progress(status);
  const details = `${line}\n${status}\n${output.text()}`;
  if (finished.exitCode === 0 && !finished.timedOut) return succeeded(details, output.truncated);
  if (finished.timedOut) {
    return failed({ kind: 'COMMAND_TIMEOUT', problem: `'${args.command}' did not finish within ${args.timeoutMs} ms and was stopped`, retry: `raise timeoutMs (up to ${LIMITS.commandTimeoutMs}) or run something narrower (one test file, one package)`, details }, output.truncated);
  }
  return failed({ kind: 'COMMAND_FAILED', problem: `'${args.command}' ${finished.exitCode === null ? `was killed by ${finished.signal}` : `exited with code ${finished.exitCode}`}`, retry: 'read the output in details, fix its cause in the code or change the arguments, then run the command again', details }, output.truncated);
}
