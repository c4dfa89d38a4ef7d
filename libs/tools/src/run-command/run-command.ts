import { z } from 'zod';
import { CommandResult, DEFAULT_SANDBOX_OPTIONS, runSandboxed, SandboxUnavailableError, UNSAFE_OPT_OUT } from '@stagecraft/sandbox';
import { LIMITS, ToolContext } from '../context';
import { ToolFailureError, ToolOutcome, failed, succeeded } from '../outcome';
import { CappedOutput } from './capped-output';

const noNul = [(s: string) => !s.includes('\0'), 'must not contain a NUL byte'] as const;

export const RunCommandArgs = z.strictObject({
  command: z
    .string()
    .min(1)
    .refine(...noNul)
    .describe('an executable from the allow-list, by name (no path, no shell syntax)'),
  args: z
    .array(z.string().refine(...noNul))
    .default([])
    .describe('arguments, passed as they are: no shell expansion, quoting or pipes'),
  timeoutMs: z.number().int().min(1).max(LIMITS.commandTimeoutMs).default(LIMITS.commandDefaultTimeoutMs),
});
export type RunCommandArgs = z.infer<typeof RunCommandArgs>;

/** The model cannot fix a missing sandbox; it can only learn why and reach its goal another way. */
function sandboxUnavailable(error: SandboxUnavailableError): ToolFailureError {
  return new ToolFailureError({
    kind: 'SANDBOX_UNAVAILABLE',
    problem: `run_command is disabled on this deployment: ${error.message}`,
    retry: `do not call run_command again in this conversation; use read_file, search_code, write_file and apply_patch instead, and tell the user that commands need the operator to ${error.remedy}`,
  });
}

async function run(args: RunCommandArgs, context: ToolContext, output: CappedOutput): Promise<CommandResult> {
  const request = {
    command: args.command,
    args: args.args,
    root: context.root,
    timeoutMs: args.timeoutMs,
    killGraceMs: LIMITS.commandKillGraceMs,
    onOutput: (chunk: Buffer) => output.push(chunk),
    onStart: (pid: number) => {
      context.onSpawn?.(pid);
      context.progress(`started ${args.command} (pid ${pid})`);
    },
  };
  try {
    const result = await runSandboxed(request, context.sandbox ?? DEFAULT_SANDBOX_OPTIONS);
    if (result.nestedMetadataUnchecked) context.progress('nested repositories past the search bounds were not made read-only');
    return result;
  } catch (error) {
    throw error instanceof SandboxUnavailableError ? sandboxUnavailable(error) : error;
  }
}

/** What the sandbox did around the command that the model should know: a wait, and metadata moved aside. */
function notes(finished: CommandResult): string {
  const lines: string[] = [];
  if (finished.queuedMs >= 100) lines.push(`waited ${finished.queuedMs} ms for a free command slot (counted in timeoutMs)`);
  if (finished.quarantined.length > 0) {
    lines.push(
      `note: the command created version-control metadata, which commands may not write (the host would run its hooks and config); moved aside: ${finished.quarantined.join(', ')}`,
    );
  }
  return lines.map((l) => `${l}\n`).join('');
}

/** Runs one allow-listed executable in the project root, in a sandbox, without a shell; stdout and stderr interleaved and capped. */
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
  const finished = await run(args, context, output);
  if (finished.neverStarted) {
    throw new ToolFailureError({
      kind: 'COMMAND_TIMEOUT',
      problem: `'${args.command}' never started: for all of its ${args.timeoutMs} ms every command slot of this service was busy, or another command was running in this project`,
      retry: 'run it again; commands in one project run one at a time, so wait for the other one to finish',
    });
  }
  if (finished.spawnError) {
    const missing = finished.spawnError.code === 'ENOENT';
    throw new ToolFailureError({
      kind: missing ? 'COMMAND_NOT_FOUND' : 'COMMAND_FAILED',
      problem: missing
        ? `'${args.command}' is allowed but not installed on this machine`
        : `'${args.command}' could not start: ${finished.spawnError.message}`,
      retry: 'use another allowed command that does the same job',
    });
  }
  const status = finished.timedOut
    ? `killed after ${args.timeoutMs} ms (timeout)`
    : finished.exitCode === null
      ? `killed by ${finished.signal}`
      : `exit code: ${finished.exitCode}`;
  context.progress(status);
  // Every result of an unsandboxed run says so, where the model, the user and the log all read it.
  const warning = finished.sandboxed
    ? ''
    : `warning: ran WITHOUT a sandbox (${UNSAFE_OPT_OUT}=1): the command had the service's file-system rights\n`;
  const details = `${line}\n${warning}${notes(finished)}${status}\n${output.text()}`;
  if (finished.exitCode === 0 && !finished.timedOut) return succeeded(details, output.truncated);
  if (finished.timedOut) {
    return failed(
      {
        kind: 'COMMAND_TIMEOUT',
        problem: `'${args.command}' did not finish within ${args.timeoutMs} ms and was stopped`,
        retry: `raise timeoutMs (up to ${LIMITS.commandTimeoutMs}) or run something narrower (one test file, one package)`,
        details,
      },
      output.truncated,
    );
  }
  return failed(
    {
      kind: 'COMMAND_FAILED',
      problem: `'${args.command}' ${finished.exitCode === null ? `was killed by ${finished.signal}` : `exited with code ${finished.exitCode}`}`,
      retry: 'read the output in details, fix its cause in the code or change the arguments, then run the command again',
      details,
    },
    output.truncated,
  );
}
