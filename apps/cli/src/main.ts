import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ServiceName, UserMode, toErrorReply } from '@stagecraft/contracts';
import { connectNatsBus, createRequester } from '@stagecraft/messaging';
import { startHost } from '@stagecraft/service-shell';
import { ChatFlags, chat } from './commands/chat';
import { ForkFlags, fork } from './commands/fork';
import { checkHealth, formatHealth } from './commands/health';
import { formatIndexSummary, indexProjectCommand } from './commands/index-project';
import { replay, verifyReplay } from './commands/replay';
import { RunsListFlags, auditStore, listRunsCommand, replayStoredRun, showRun } from './commands/runs';
import { cliConfig, parseServices, parseTransport } from './options';
import { allServices } from './services';

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

program
  .command('chat')
  .description('send a message and follow its run live (embedded unless --nats-url)')
  .argument('<message>', 'what you want done')
  .requiredOption('--root <dir>', 'the project the run works in')
  .addOption(new Option('--mode <mode>', 'agent | chat').argParser(parseMode).default('agent'))
  .option('--reasoning', 'require reasoning on every step')
  .option('--conversation <id>', 'continue a conversation')
  .option('--json', 'one JSON object per run event, then the result')
  .option('--timeout <ms>', 'give up after this long', (v) => Number.parseInt(v, 10), 600_000)
  .addOption(natsOption())
  .addOption(storeOption())
  .action(async (message: string, flags: ChatFlags & { natsUrl?: string; store?: string }) => {
    const result = await chat(message, flags, cliConfig(flags));
    process.exitCode = result.failed ? 1 : 0;
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

program.parseAsync(process.argv).catch((error: unknown) => {
  const reply = toErrorReply(error);
  process.stderr.write(`stagecraft: ${reply.message}\n`);
  for (const issue of reply.issues) process.stderr.write(`  - ${issue.path.join('.') || '(root)'}: ${issue.message}\n`);
  process.exit(2);
});
