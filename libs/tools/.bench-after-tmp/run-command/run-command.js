"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.RunCommandArgs = void 0;
exports.runCommandTool = runCommandTool;
const zod_1 = require("zod");
const sandbox_1 = require("@stagecraft/sandbox");
const context_1 = require("../context");
const outcome_1 = require("../outcome");
const capped_output_1 = require("./capped-output");
const noNul = [(s) => !s.includes('\0'), 'must not contain a NUL byte'];
exports.RunCommandArgs = zod_1.z.strictObject({
    command: zod_1.z
        .string()
        .min(1)
        .refine(...noNul)
        .describe('an executable from the allow-list, by name (no path, no shell syntax)'),
    args: zod_1.z
        .array(zod_1.z.string().refine(...noNul))
        .default([])
        .describe('arguments, passed as they are: no shell expansion, quoting or pipes'),
    timeoutMs: zod_1.z.number().int().min(1).max(context_1.LIMITS.commandTimeoutMs).default(context_1.LIMITS.commandDefaultTimeoutMs),
});
/** The model cannot fix a missing sandbox; it can only learn why and reach its goal another way. */
function sandboxUnavailable(error) {
    return new outcome_1.ToolFailureError({
        kind: 'SANDBOX_UNAVAILABLE',
        problem: `run_command is disabled on this deployment: ${error.message}`,
        retry: `do not call run_command again in this conversation; use read_file, search_code, write_file and apply_patch instead, and tell the user that commands need the operator to ${error.remedy}`,
    });
}
async function run(args, context, output) {
    const request = {
        command: args.command,
        args: args.args,
        root: context.root,
        timeoutMs: args.timeoutMs,
        killGraceMs: context_1.LIMITS.commandKillGraceMs,
        onOutput: (chunk) => output.push(chunk),
        onStart: (pid) => {
            context.onSpawn?.(pid);
            context.progress(`started ${args.command} (pid ${pid})`);
        },
    };
    try {
        return await (0, sandbox_1.runSandboxed)(request, context.sandbox ?? sandbox_1.DEFAULT_SANDBOX_OPTIONS);
    }
    catch (error) {
        throw error instanceof sandbox_1.SandboxUnavailableError ? sandboxUnavailable(error) : error;
    }
}
/** Runs one allow-listed executable in the project root, in a sandbox, without a shell; stdout and stderr interleaved and capped. */
async function runCommandTool(args, context) {
    const line = ['$', args.command, ...args.args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a)))].join(' ');
    if (/[\\/]/.test(args.command) || !context.allowedCommands.includes(args.command)) {
        throw new outcome_1.ToolFailureError({
            kind: 'COMMAND_NOT_ALLOWED',
            problem: `'${args.command}' is not an allowed command`,
            retry: `use one of: ${context.allowedCommands.join(', ')} (by name, without a path); for a project script use npm run <script>`,
        });
    }
    const output = new capped_output_1.CappedOutput(context_1.LIMITS.commandOutputBytes);
    const finished = await run(args, context, output);
    if (finished.spawnError) {
        const missing = finished.spawnError.code === 'ENOENT';
        throw new outcome_1.ToolFailureError({
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
        : `warning: ran WITHOUT a sandbox (${sandbox_1.UNSAFE_OPT_OUT}=1): the command had the service's file-system rights\n`;
    const details = `${line}\n${warning}${status}\n${output.text()}`;
    if (finished.exitCode === 0 && !finished.timedOut)
        return (0, outcome_1.succeeded)(details, output.truncated);
    if (finished.timedOut) {
        return (0, outcome_1.failed)({
            kind: 'COMMAND_TIMEOUT',
            problem: `'${args.command}' did not finish within ${args.timeoutMs} ms and was stopped`,
            retry: `raise timeoutMs (up to ${context_1.LIMITS.commandTimeoutMs}) or run something narrower (one test file, one package)`,
            details,
        }, output.truncated);
    }
    return (0, outcome_1.failed)({
        kind: 'COMMAND_FAILED',
        problem: `'${args.command}' ${finished.exitCode === null ? `was killed by ${finished.signal}` : `exited with code ${finished.exitCode}`}`,
        retry: 'read the output in details, fix its cause in the code or change the arguments, then run the command again',
        details,
    }, output.truncated);
}
//# sourceMappingURL=run-command.js.map