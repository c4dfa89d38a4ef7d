import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { EXIT, EXIT_CODES_HELP, exitCodeOfRun } from './exit-codes';
import {
  APPROVAL_POLICIES,
  milliseconds,
  parseApprovalPolicy,
  parseGates,
  parseMode,
  parsePhases,
  parsePort,
  parseRevision,
  parseServices,
  parseTransport,
  wholeNumber,
} from './options';
import type { ApproveFlags } from './commands/approve';
import type { ChatFlags } from './commands/chat';
import type { ForkFlags } from './commands/fork';
import type { HealthFlags } from './commands/health';
import type { RunsListFlags } from './commands/runs';
import type { CancelFlags } from './commands/cancel';
import type { ResumeFlags } from './commands/resume';
import type { ServeFlags } from './commands/serve';
import type { WorkflowFlags } from './commands/workflow';
import type { McpFlags } from './mcp/serve';
import type { ConsoleFlags } from './console/console';
import type { AcpFlags } from './acp/serve';

/*
 * Only commander and the option parsers load at start-up: each command's module (and the system
 * behind it) is imported inside its action, so `--help` and `--version` cost a bare Node start.
 */

// A reader that stops early (`stagecraft runs show ID | head -2`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(EXIT.done);
  throw error;
});

/** A command's module, loaded when the command runs; Nest's decorators need reflect-metadata loaded first. */
async function load<T>(module: () => Promise<T>): Promise<T> {
  await import('reflect-metadata');
  return module();
}

type ConnectionFlags = { natsUrl?: string; store?: string };
const config = async (flags: ConnectionFlags) => (await load(() => import('./cli-config.js'))).cliConfig(flags);
/** Commands that only touch the log need its URL, not the whole shell configuration. */
const storeOf = async (flags: { store?: string }) => (await import('./store-url.js')).storeOf(flags);

const version = (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;

const program = new Command('stagecraft')
  .description('Stagecraft: staged, event-sourced agentic coding conversations')
  .version(version, '-V, --version', 'print the version')
  // Commander would exit 1 on a usage error; every usage error here exits 2 (see the catch below).
  .exitOverride()
  .showHelpAfterError()
  .addHelpText('after', EXIT_CODES_HELP);

const natsOption = () => new Option('--nats-url <url>', 'NATS server(s) of a distributed system (or NATS_URL)');
const storeOption = () => new Option('--store <url>', 'event store: sqlite:PATH | memory: | kurrentdb://… (or STAGECRAFT_STORE)');
const timeoutOption = (description: string, fallback: number) =>
  new Option('--timeout <ms>', description).argParser(milliseconds).default(fallback);

program
  .command('serve')
  .description('run services in this process (all six, in-process transport, sqlite store by default)')
  .option('--services <list>', 'comma-separated subset of services', parseServices)
  .addOption(
    new Option('--transport <kind>', 'inproc | nats (default: nats when a NATS URL is given, else inproc)').argParser(parseTransport),
  )
  .addOption(natsOption())
  .addOption(storeOption())
  .option('--api-port <port>', 'also serve the console API and page on this port (or STAGECRAFT_API_PORT; 0/unset: off)', parsePort)
  .option('--api-host <host>', 'the address the console API listens on (or STAGECRAFT_API_HOST; default 127.0.0.1)')
  .action(async (flags: ServeFlags) => {
    const { serveCommand } = await load(() => import('./commands/serve.js'));
    await serveCommand(flags);
  });

program
  .command('health')
  .description('ask all six services for their health; exits non-zero when one is down')
  .addOption(natsOption())
  .addOption(storeOption())
  .addOption(timeoutOption('per-service timeout', 2000))
  .option('--json', 'print the rows as JSON')
  .action(async (flags: HealthFlags) => {
    const { healthCommand } = await load(() => import('./commands/health.js'));
    process.exitCode = await healthCommand(flags);
  });

program
  .command('chat')
  .description('send a message and follow its run live (embedded unless --nats-url)')
  .argument('[message]', 'what you want done (optional with --continue)')
  .requiredOption('--root <dir>', 'the project the run works in')
  .addOption(new Option('--mode <mode>', 'agent | chat').argParser(parseMode).default('agent'))
  .option('--reasoning', 'require reasoning on every step')
  .option('--conversation <id>', 'continue a conversation')
  .option('--continue', "first drive the conversation's unfinished runs to their end (--conversation, or the root's latest)")
  .addOption(
    new Option(
      '--approve <policy>',
      `${APPROVAL_POLICIES.join(' | ')}: which tool calls wait for your approval (asked at a terminal; otherwise exit 4 and answer with \`stagecraft approve\`)`,
    )
      .argParser(parseApprovalPolicy)
      .default('never'),
  )
  // The ranges of the conversation.send contract (RUN_LIMIT_RANGES), written out: contracts load only when a command runs.
  .option('--max-tool-rounds <n>', "tool rounds between delivery checks, 1-200 (default: the service's, 12)", wholeNumber(1, 200))
  .option(
    '--max-delivery-checks <n>',
    "delivery checks before QA takes the work as it is, 1-20 (default: the service's, 3)",
    wholeNumber(1, 20),
  )
  .option('--json', 'one JSON object per run event, then the result (with changedFiles and usage)')
  .option('--stream', 'with --json: the model\'s visible text as {"type":"delta","text","stage","requestId"} lines while it streams')
  .addOption(timeoutOption('give up after this long', 600_000))
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (message: string | undefined, flags: ChatFlags & ConnectionFlags) => {
    if (message === undefined && !flags.continue) {
      process.stderr.write("error: missing required argument 'message' (or --continue); see stagecraft chat --help\n");
      process.exitCode = EXIT.usage;
      return;
    }
    const { chat } = await load(() => import('./commands/chat.js'));
    const result = await chat(message, flags, await config(flags));
    // Ctrl-C: 130, as a shell reports a command the user interrupted, once the cancelled run has settled.
    process.exitCode = result.interrupted ? 130 : exitCodeOfRun(result);
  });

program
  .command('approve')
  .description('answer the approval a run or workflow waits for, then follow it on (embedded unless --nats-url)')
  .argument('<id>', 'the run or the workflow that waits')
  .option('--deny', 'refuse the call instead; the model is told, and the run goes on')
  .option('--reason <text>', 'why: told to the model on a denial')
  .option('--root <dir>', 'the project the run works in')
  .option('--json', 'one JSON object per run event, then the result')
  .addOption(timeoutOption('give up after this long', 600_000))
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (id: string, flags: ApproveFlags & ConnectionFlags) => {
    const { approve } = await load(() => import('./commands/approve.js'));
    process.exitCode = exitCodeOfRun(await approve(id, flags, await config(flags)));
  });

const runs = program.command('runs').description('inspect runs in the event store');
runs
  .command('list')
  .description('the runs, newest first: status, stage, times, model calls, tokens, cost, delivery and QA (embedded unless --nats-url)')
  .option('--stuck', 'only runs idle for longer than STAGECRAFT_STUCK_AFTER_MS (default 10 minutes)')
  .option('--status <status>', 'running | completed | failed | cancelled')
  .addOption(new Option('--limit <n>', 'at most this many runs (1-500)').argParser(wholeNumber(1, 500)).default(50))
  .option('--json', 'the runs.list reply object')
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (flags: RunsListFlags & ConnectionFlags) => {
    const { listRunsCommand } = await load(() => import('./commands/runs.js'));
    await listRunsCommand(flags, await config(flags));
  });
runs
  .command('show')
  .argument('<runId>')
  .addOption(storeOption())
  .option('--json', 'the raw events, one per line')
  .option('--prompts', 'with each model request, the messages it sent, rebuilt from the stored prompt bodies')
  .option('--diffs', 'every diff of the run in full (otherwise each is clipped to 40 lines)')
  .action(async (runId: string, flags: { store?: string; json?: boolean; prompts?: boolean; diffs?: boolean }) => {
    // The timeline alone needs no service module; the stored prompts' reader is the conversation service's.
    const { showRun } = await load(() => import('./commands/run-timeline.js'));
    const { paint, wantsColour } = await load(() => import('./commands/diff-view.js'));
    const restore = flags.prompts ? (await load(() => import('./commands/runs.js'))).restorePrompts : undefined;
    const view = { diffs: Boolean(flags.diffs), style: paint(wantsColour(process.stdout, process.env)) };
    const found = await showRun(runId, await storeOf(flags), Boolean(flags.json), restore, view);
    process.exitCode = found ? EXIT.done : EXIT.failed;
  });
runs
  .command('resume')
  .description('drive an unfinished run on to its end from this process, and follow it live (embedded unless --nats-url)')
  .argument('<runId>')
  .option('--json', 'one JSON object per run event, then the result')
  .addOption(timeoutOption('give up after this long', 600_000))
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (runId: string, flags: ResumeFlags & ConnectionFlags) => {
    const { resumeRun } = await load(() => import('./commands/resume.js'));
    const result = await resumeRun(runId, flags, await config(flags));
    process.exitCode = result.interrupted ? 130 : exitCodeOfRun(result);
  });
runs
  .command('cancel')
  .description(
    'cancel a run: a tool call in flight is stopped and recorded interrupted; exit 1 if it had ended (embedded unless --nats-url)',
  )
  .argument('<runId>')
  .option('--reason <text>', 'why, for the people reading the run (at most 500 characters)')
  .option('--json', 'the run.cancel reply object')
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (runId: string, flags: CancelFlags & ConnectionFlags) => {
    const { cancelRunCommand } = await load(() => import('./commands/cancel.js'));
    process.exitCode = await cancelRunCommand(runId, flags, await config(flags));
  });
runs
  .command('replay')
  .description('decide a stored run again from its own log (no model, tool or reviewer) and compare')
  .argument('<runId>')
  .addOption(storeOption())
  .action(async (runId: string, flags: { store?: string }) => {
    const { replayStoredRun } = await load(() => import('./commands/runs.js'));
    process.exitCode = (await replayStoredRun(runId, await storeOf(flags))) ? EXIT.done : EXIT.failed;
  });
runs
  .command('fork')
  .description('start a new run from a stored run up to one of its revisions, and follow it live (embedded unless --nats-url)')
  .argument('<runId>')
  .requiredOption(
    '--at <revision>',
    'the last event (0-based revision) of the stored run the new run keeps; it must end a commit',
    parseRevision,
  )
  .option('--json', 'one JSON object per run event, then the result')
  .addOption(timeoutOption('give up after this long', 600_000))
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (runId: string, flags: ForkFlags & ConnectionFlags) => {
    const { fork } = await load(() => import('./commands/fork.js'));
    process.exitCode = exitCodeOfRun(await fork(runId, flags, await config(flags)));
  });

program
  .command('audit')
  .description("check DESIGN.md's invariants over the stored runs (or one) and name any event that breaks one")
  .option('--run <runId>', 'audit one run')
  .addOption(storeOption())
  .action(async (flags: { store?: string; run?: string }) => {
    const { auditStore } = await load(() => import('./commands/runs.js'));
    process.exitCode = (await auditStore(await storeOf(flags), flags.run)) ? EXIT.done : EXIT.failed;
  });

program
  .command('replay')
  .description('rebuild every read model (or one) from the log (position zero) and save its checkpoint; --verify compares instead')
  .option('--projection <name>', 'only this read model')
  .option('--verify', 'rebuild into a scratch store and compare with the live views; exit 1 when one differs')
  .addOption(storeOption())
  .action(async (flags: { store?: string; projection?: string; verify?: boolean }) => {
    const { replay, verifyReplay } = await load(() => import('./commands/replay.js'));
    const store = await storeOf(flags);
    if (!flags.verify) return replay(store, flags.projection);
    process.exitCode = (await verifyReplay(store, flags.projection)) ? EXIT.done : EXIT.failed;
  });

program
  .command('index')
  .description("build or update a project's codebase index (files, symbols, entry points) in the event store")
  .requiredOption('--root <dir>', 'the project root')
  .addOption(storeOption())
  .action(async (flags: { root: string; store?: string }) => {
    const { formatIndexSummary, indexProjectCommand } = await load(() => import('./commands/index-project.js'));
    process.stdout.write(formatIndexSummary(await indexProjectCommand(flags.root, await storeOf(flags))));
  });

program
  .command('mcp')
  .description(
    'serve Stagecraft as an MCP server: stdio, or Streamable HTTP at /mcp with --http, for clients with the bearer token STAGECRAFT_MCP_TOKEN (embedded unless --nats-url)',
  )
  .option('--http <port>', 'serve Streamable HTTP on this port (0: any free port) instead of stdio', parsePort)
  .option('--host <host>', 'the address --http listens on; beyond the loopback only with STAGECRAFT_MCP_TOKEN set', '127.0.0.1')
  .option('--root <dir>', 'the project root of tool calls that name none, and the only one they may name (unless STAGECRAFT_PROJECT_ROOTS)')
  .addOption(
    new Option(
      '--chat-timeout <ms>',
      'how long the chat tool follows a run before answering with it still running (below the usual 60 s request timeout of MCP clients)',
    )
      .argParser(milliseconds)
      .default(50_000),
  )
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (flags: McpFlags & ConnectionFlags) => {
    const { serveMcp } = await load(() => import('./mcp/serve.js'));
    await serveMcp(flags, await config(flags));
  });

program
  .command('acp')
  .description('serve Stagecraft as an Agent Client Protocol agent on stdio, for editors such as Zed (embedded unless --nats-url)')
  .option('--root <dir>', 'the only project root sessions may work in (unless STAGECRAFT_PROJECT_ROOTS)')
  .addOption(
    new Option('--approve <policy>', `${APPROVAL_POLICIES.join(' | ')}: which tool calls the editor asks you about`)
      .argParser(parseApprovalPolicy)
      .default('writes'),
  )
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (flags: AcpFlags & ConnectionFlags) => {
    const { serveAcp } = await load(() => import('./acp/serve.js'));
    await serveAcp(flags, await config(flags), version);
  });

program
  .command('console')
  .description(
    'serve the HTTP API (/api/v1, bearer token STAGECRAFT_API_TOKEN) and the web console; embedded over --store unless --nats-url',
  )
  .addOption(new Option('--port <n>', 'the port (0: any free one)').argParser(parsePort).default(4280))
  .option('--host <host>', 'the address it listens on; beyond the loopback only with STAGECRAFT_API_TOKEN set', '127.0.0.1')
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (flags: ConsoleFlags & ConnectionFlags) => {
    const { consoleCommand } = await load(() => import('./console/console.js'));
    await consoleCommand(flags, await config(flags));
  });

const workflowOptions = (command: Command) =>
  command
    .requiredOption('--root <dir>', 'the project the agents work in')
    .option('--reasoning', 'require reasoning on every step of every agent')
    .addOption(
      new Option('--approve <which>', `tool calls that wait for a person: ${APPROVAL_POLICIES.join(' | ')}`)
        .argParser(parseApprovalPolicy)
        .default('never'),
    )
    .option('--gate <gates>', 'stop for approval: after-planning, before-merge (comma-separated)', parseGates)
    .option('--parallel <n>', 'agents of a phase that run at the same time (default 4)', wholeNumber(1, 1_000))
    .option('--json', 'print the final workflow view as JSON')
    .addOption(timeoutOption('stop following after this long (the workflow goes on)', 3_600_000))
    .addOption(natsOption())
    .addOption(storeOption());

const workflow = program
  .command('workflow')
  .description('multi-agent workflows: discovery → planning → tickets, or a workflow definition step by step');
workflowOptions(
  workflow
    .command('start')
    .description('start a workflow for a goal and follow its phases and agents live (embedded unless --nats-url)')
    .argument('<goal>', 'what the workflow should achieve')
    .option('--phases <list>', 'the phases to run, in order (default discovery,planning,tickets)', parsePhases),
).action(async (goal: string, flags: WorkflowFlags & ConnectionFlags) => {
  const { startWorkflow } = await load(() => import('./commands/workflow.js'));
  process.exitCode = await startWorkflow({ goal }, flags, await config(flags));
});
workflowOptions(
  workflow
    .command('run')
    .description('walk a workflow definition (workflows/<name>.json) step by step, each step an agent run')
    .argument('<name>', 'the workflow definition id')
    .option('--goal <text>', 'what the steps are for', 'Follow the workflow for this project.'),
).action(async (name: string, flags: WorkflowFlags & { goal: string } & ConnectionFlags) => {
  const { startWorkflow } = await load(() => import('./commands/workflow.js'));
  process.exitCode = await startWorkflow({ goal: flags.goal, workflow: name }, flags, await config(flags));
});
workflow
  .command('resume')
  .description(
    'drive a workflow another process left (an answered approval, a crash) on to its end, and follow it (embedded unless --nats-url)',
  )
  .argument('<workflowId>')
  .requiredOption('--root <dir>', 'the project the agents work in')
  .option('--json', 'print the final workflow view as JSON')
  .addOption(timeoutOption('stop following after this long (the workflow goes on)', 3_600_000))
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (workflowId: string, flags: Pick<WorkflowFlags, 'root' | 'json' | 'timeout'> & ConnectionFlags) => {
    const { resumeWorkflow } = await load(() => import('./commands/workflow.js'));
    process.exitCode = await resumeWorkflow(workflowId, flags, await config(flags));
  });
workflow
  .command('show')
  .description('a workflow as a tree of phases → agents → runs')
  .argument('<workflowId>')
  .option('--json', 'the workflow.get reply')
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (workflowId: string, flags: { json?: boolean } & ConnectionFlags) => {
    const { showWorkflow } = await load(() => import('./commands/workflow.js'));
    await showWorkflow(workflowId, flags, await config(flags));
  });
workflow
  .command('cancel')
  .description('stop a workflow: nothing more is dispatched and its running agents are cancelled; exit 1 if it had ended')
  .argument('<workflowId>')
  .option('--reason <text>', 'why, for the people reading the workflow (at most 500 characters)')
  .option('--json', 'the workflow.cancel reply object')
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (workflowId: string, flags: { reason?: string; json?: boolean } & ConnectionFlags) => {
    const { cancelWorkflowCommand } = await load(() => import('./commands/workflow.js'));
    process.exitCode = await cancelWorkflowCommand(workflowId, flags, await config(flags));
  });

program.parseAsync(process.argv).catch(async (error: unknown) => {
  // Commander has printed its own message (or the help, or the version) by now.
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? EXIT.done : EXIT.usage);
  const { reportError } = await import('./report-error.js');
  process.exit(reportError(error));
});
