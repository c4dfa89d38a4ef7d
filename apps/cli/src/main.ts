import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ApprovalPolicy, PHASES, PhaseName, ServiceName, UserMode, toErrorReply } from '@stagecraft/contracts';
import { WorkflowFlags, showWorkflow, startWorkflow } from './commands/workflow';
import { connectNatsBus, createRequester } from '@stagecraft/messaging';
import { startHost } from '@stagecraft/service-shell';
import { ApproveFlags, approve } from './commands/approve';
import { ChatFlags, WAITING_EXIT_CODE, chat } from './commands/chat';
import { ForkFlags, fork } from './commands/fork';
import { checkHealth, formatHealth } from './commands/health';
import { formatIndexSummary, indexProjectCommand } from './commands/index-project';
import { replay, verifyReplay } from './commands/replay';
import { RunsListFlags, auditStore, listRunsCommand, replayStoredRun, showRun } from './commands/runs';
import { cliConfig, parseServices, parseTransport } from './options';
import { allServices } from './services';
import { McpFlags, serveMcp } from './mcp/serve';

const program = new Command('stagecraft')
  .description('Stagecraft: staged, event-sourced agentic coding conversations')
  .showHelpAfterError();

const natsOption = () => new Option('--nats-url <url>', 'NATS server(s) of a distributed system (or NATS_URL)');
const storeOption = () => new Option('--store <url>', 'event store: sqlite:PATH | memory: | kurrentdb://… (or STAGECRAFT_STORE)');

program
  .command('serve')
  .description('run services in this process (all six, in-process transport, sqlite store by default)')
  .option('--services <list>', 'comma-separated subset of services', parseServices)
  .addOption(new Option('--transport <kind>', 'inproc | nats').argParser(parseTransport).default('inproc'))
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (flags: { services?: ServiceName[]; transport: 'inproc' | 'nats'; natsUrl?: string; store?: string }) => {
    const config = cliConfig(flags);
    const host = await startHost({
      definitions: allServices(),
      only: flags.services,
      transport: flags.transport,
      natsUrl: config.natsUrl,
      store: config.store,
      config,
      env: process.env,
    });
    const names = host.running.services.map((s) => s.name).join(', ');
    process.stdout.write(
      `stagecraft serving ${names} on ${flags.transport}${flags.transport === 'nats' ? ` (${config.natsUrl})` : ''}, store ${config.store}\n`,
    );
    const stop = async () => {
      await host.close();
      process.exit(0);
    };
    process.once('SIGINT', () => void stop());
    process.once('SIGTERM', () => void stop());
  });

program
  .command('health')
  .description('ask all six services for their health; exits non-zero when one is down')
  .addOption(natsOption())
  .addOption(storeOption())
  .option('--timeout <ms>', 'per-service timeout', (v) => Number.parseInt(v, 10), 2000)
  .option('--json', 'print the rows as JSON')
  .action(async (flags: { natsUrl?: string; store?: string; timeout: number; json?: boolean }) => {
    const config = cliConfig(flags);
    // Without a NATS URL the command answers for the embedded system: all six services in this process.
    const host = config.natsUrl
      ? null
      : await startHost({
          definitions: allServices({ resume: false }),
          transport: 'inproc',
          store: config.store,
          config,
          env: process.env,
        });
    const bus = host ? host.ports.bus : await connectNatsBus(config.natsUrl as string, 'stagecraft-cli');
    const requester = createRequester(bus, { prefix: config.prefix, newId: randomUUID, timeoutMs: flags.timeout });
    const rows = await checkHealth(requester, flags.timeout);
    process.stdout.write(flags.json ? `${JSON.stringify(rows)}\n` : `${formatHealth(rows)}\n`);
    await (host ? host.close() : bus.close());
    process.exitCode = rows.every((r) => r.up) ? 0 : 1;
  });

const parseMode = (value: string): UserMode => {
  if (value !== 'agent' && value !== 'chat') throw new InvalidArgumentError('agent or chat');
  return value;
};

const parseApprovalPolicy = (value: string): ApprovalPolicy => {
  const parsed = ApprovalPolicy.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError('never, writes or commands');
  return parsed.data;
};

/** A run left waiting for a person exits 3; a failed one 1. */
const exitCodeOf = (result: { failed: boolean; waiting: unknown }): number => (result.waiting ? WAITING_EXIT_CODE : result.failed ? 1 : 0);

program
  .command('chat')
  .description('send a message and follow its run live (embedded unless --nats-url)')
  .argument('<message>', 'what you want done')
  .requiredOption('--root <dir>', 'the project the run works in')
  .addOption(new Option('--mode <mode>', 'agent | chat').argParser(parseMode).default('agent'))
  .option('--reasoning', 'require reasoning on every step')
  .option('--conversation <id>', 'continue a conversation')
  .addOption(
    new Option(
      '--approve <policy>',
      'never | writes | commands: which tool calls wait for your approval (asked at a terminal; otherwise exit 3 and answer with `stagecraft approve`)',
    )
      .argParser(parseApprovalPolicy)
      .default('never'),
  )
  .option('--json', 'one JSON object per run event, then the result')
  .option('--timeout <ms>', 'give up after this long', (v) => Number.parseInt(v, 10), 600_000)
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (message: string, flags: ChatFlags & { natsUrl?: string; store?: string }) => {
    const result = await chat(message, flags, cliConfig(flags));
    process.exitCode = exitCodeOf(result);
  });

program
  .command('approve')
  .description('answer the approval a run or workflow waits for, then follow it on (embedded unless --nats-url)')
  .argument('<id>', 'the run or the workflow that waits')
  .option('--deny', 'refuse the call instead; the model is told, and the run goes on')
  .option('--reason <text>', 'why: told to the model on a denial')
  .option('--root <dir>', 'the project the run works in')
  .option('--json', 'one JSON object per run event, then the result')
  .option('--timeout <ms>', 'give up after this long', (v) => Number.parseInt(v, 10), 600_000)
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (id: string, flags: ApproveFlags & { natsUrl?: string; store?: string }) => {
    process.exitCode = exitCodeOf(await approve(id, flags, cliConfig(flags)));
  });

const parseRevision = (value: string): number => {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError('a revision: a whole number from 0');
  return Number(value);
};

const runs = program.command('runs').description('inspect runs in the event store');
runs
  .command('list')
  .description('the runs, newest first: status, stage, times, model calls, tokens, cost, delivery and QA (embedded unless --nats-url)')
  .option('--stuck', 'only runs idle for longer than STAGECRAFT_STUCK_AFTER_MS (default 10 minutes)')
  .option('--status <status>', 'running | completed | failed')
  .option('--limit <n>', 'at most this many runs (1-500)', (v) => Number(v), 50)
  .option('--json', 'the runs.list reply object')
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (flags: RunsListFlags & { natsUrl?: string; store?: string }) => listRunsCommand(flags, cliConfig(flags)));
runs
  .command('show')
  .argument('<runId>')
  .addOption(storeOption())
  .option('--json', 'the raw events, one per line')
  .option('--prompts', 'with each model request, the messages it sent, rebuilt from the stored prompt bodies')
  .action(async (runId: string, flags: { store?: string; json?: boolean; prompts?: boolean }) => {
    const found = await showRun(runId, cliConfig(flags).store, Boolean(flags.json), Boolean(flags.prompts));
    process.exitCode = found ? 0 : 1;
  });
runs
  .command('replay')
  .description('decide a stored run again from its own log (no model, tool or reviewer) and compare')
  .argument('<runId>')
  .addOption(storeOption())
  .action(async (runId: string, flags: { store?: string }) => {
    process.exitCode = (await replayStoredRun(runId, cliConfig(flags).store)) ? 0 : 1;
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
  .option('--timeout <ms>', 'give up after this long', (v) => Number.parseInt(v, 10), 600_000)
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (runId: string, flags: ForkFlags & { natsUrl?: string; store?: string }) => {
    const result = await fork(runId, flags, cliConfig(flags));
    process.exitCode = result.failed ? 1 : 0;
  });

program
  .command('audit')
  .description("check DESIGN.md's invariants over the stored runs (or one) and name any event that breaks one")
  .option('--run <runId>', 'audit one run')
  .addOption(storeOption())
  .action(async (flags: { store?: string; run?: string }) => {
    process.exitCode = (await auditStore(cliConfig(flags).store, flags.run)) ? 0 : 1;
  });

program
  .command('replay')
  .description('rebuild every read model (or one) from the log (position zero) and save its checkpoint; --verify compares instead')
  .option('--projection <name>', 'only this read model')
  .option('--verify', 'rebuild into a scratch store and compare with the live views; exit 1 when one differs')
  .addOption(storeOption())
  .action(async (flags: { store?: string; projection?: string; verify?: boolean }) => {
    const store = cliConfig(flags).store;
    if (!flags.verify) return replay(store, flags.projection);
    process.exitCode = (await verifyReplay(store, flags.projection)) ? 0 : 1;
  });

program
  .command('index')
  .description("build or update a project's codebase index (files, symbols, entry points) in the event store")
  .requiredOption('--root <dir>', 'the project root')
  .addOption(storeOption())
  .action(async (flags: { root: string; store?: string }) => {
    process.stdout.write(formatIndexSummary(await indexProjectCommand(flags.root, cliConfig(flags).store)));
  });

const parsePort = (value: string): number => {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new InvalidArgumentError('a port: 0 (any free one) to 65535');
  return port;
};

program
  .command('mcp')
  .description('serve Stagecraft as an MCP server: stdio, or Streamable HTTP at /mcp with --http (embedded unless --nats-url)')
  .option('--http <port>', 'serve Streamable HTTP on this port (0: any free port) instead of stdio', parsePort)
  .option('--host <host>', 'the address --http listens on', '127.0.0.1')
  .option('--root <dir>', 'the project root of tool calls that name none')
  .option(
    '--chat-timeout <ms>',
    'how long the chat tool follows a run before answering with it still running (below the usual 60 s request timeout of MCP clients)',
    (v) => Number.parseInt(v, 10),
    50_000,
  )
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (flags: McpFlags & { natsUrl?: string; store?: string }) => serveMcp(flags, cliConfig(flags)));

const parsePhases = (value: string): PhaseName[] => {
  const phases = value.split(',').map((p) => p.trim());
  const bad = phases.filter((p) => !(PHASES as readonly string[]).includes(p));
  if (bad.length > 0 || phases.length === 0) throw new InvalidArgumentError(`a comma-separated list of ${PHASES.join(', ')}`);
  return phases as PhaseName[];
};
const parseApprove = (value: string): ApprovalPolicy => {
  const parsed = ApprovalPolicy.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError('never, writes or commands');
  return parsed.data;
};
const parseGates = (value: string): ('after-planning' | 'before-merge')[] => {
  const gates = value.split(',').map((g) => g.trim());
  if (gates.some((g) => g !== 'after-planning' && g !== 'before-merge'))
    throw new InvalidArgumentError('after-planning and/or before-merge');
  return gates as ('after-planning' | 'before-merge')[];
};
const parsePositive = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('a whole number from 1');
  return Number(value);
};

const workflowOptions = (command: Command) =>
  command
    .requiredOption('--root <dir>', 'the project the agents work in')
    .option('--reasoning', 'require reasoning on every step of every agent')
    .addOption(
      new Option('--approve <which>', 'tool calls that wait for a person: never | writes | commands')
        .argParser(parseApprove)
        .default('never'),
    )
    .option('--gate <gates>', 'stop for approval: after-planning, before-merge (comma-separated)', parseGates)
    .option('--parallel <n>', 'agents of a phase that run at the same time (default 4)', parsePositive)
    .option('--json', 'print the final workflow view as JSON')
    .option('--timeout <ms>', 'stop following after this long (the workflow goes on)', parsePositive, 3_600_000)
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
).action(async (goal: string, flags: WorkflowFlags & { natsUrl?: string; store?: string }) => {
  process.exitCode = await startWorkflow({ goal }, flags, cliConfig(flags));
});
workflowOptions(
  workflow
    .command('run')
    .description('walk a workflow definition (workflows/<name>.json) step by step, each step an agent run')
    .argument('<name>', 'the workflow definition id')
    .option('--goal <text>', 'what the steps are for', 'Follow the workflow for this project.'),
).action(async (name: string, flags: WorkflowFlags & { goal: string; natsUrl?: string; store?: string }) => {
  process.exitCode = await startWorkflow({ goal: flags.goal, workflow: name }, flags, cliConfig(flags));
});
workflow
  .command('show')
  .description('a workflow as a tree of phases → agents → runs')
  .argument('<workflowId>')
  .option('--json', 'the workflow.get reply')
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (workflowId: string, flags: { json?: boolean; natsUrl?: string; store?: string }) =>
    showWorkflow(workflowId, flags, cliConfig(flags)),
  );

program.parseAsync(process.argv).catch((error: unknown) => {
  const reply = toErrorReply(error);
  process.stderr.write(`stagecraft: ${reply.message}\n`);
  for (const issue of reply.issues) process.stderr.write(`  - ${issue.path.join('.') || '(root)'}: ${issue.message}\n`);
  process.exit(2);
});
