import { randomUUID } from 'node:crypto';
import { RunsListReply, RunsListRequest, runEvents, streams, validationError } from '@stagecraft/contracts';
import { DEFAULT_RUN_LIMITS, auditRun, replayRun } from '@stagecraft/run';
import {
  catchUpProjection,
  describeChainBreak,
  describeChainReport,
  openEventStore,
  readEvents,
  verifyStoreChain,
  verifyStreamChain,
} from '@stagecraft/event-store';
import type { EventReader, EventStore } from '@stagecraft/event-store';
import { earlierTurns, restoreRequests } from '@stagecraft/conversation-service';
import { MemoryConfig, memoryConfigFromEnv } from '@stagecraft/memory-service';
import { connectNatsBus, createRequester } from '@stagecraft/messaging';
import { listRuns, runsModel, summarize } from '@stagecraft/read-models';
import type { ShellConfig } from '@stagecraft/service-shell';
import { RestorePrompts, runTimeline as timeline } from './run-timeline';
import { readOnlyCheckpoints } from './read-only-checkpoints';
import { formatRuns } from './runs-table';

/**
 * The timeline of one run (see `run-timeline.ts`); with `prompts`, each model request's messages too,
 * rebuilt by the conversation service's own reader of the stored bodies.
 */
export function runTimeline(reader: EventReader, runId: string, json: boolean, prompts = false): Promise<string[] | null> {
  return timeline(reader, runId, json, prompts ? restoreRequests : undefined);
}

/** The stored prompts' reader `runs show --prompts` adds to the timeline. */
export const restorePrompts: RestorePrompts = restoreRequests;

/** `stagecraft runs replay`: the run decided again from its own log; true when every event comes out the same. */
export async function replayStoredRun(runId: string, store: string): Promise<boolean> {
  const events = openEventStore(store);
  try {
    const log = await readEvents(events, streams.run(runId), runEvents);
    if (log.length === 0) {
      process.stderr.write(`stagecraft: no run ${runId} in ${store}\n`);
      return false;
    }
    // The earlier turns the run started with: what it compacted at its start depends on them.
    const start = log[0].type === 'RunStarted' ? log[0].data : undefined;
    const prior = start ? await earlierTurns(events, start.conversationId, start.historyThrough) : undefined;
    // The decisions are taken again from what the log says; the chain says whether the log is what was written.
    const chain = verifyStreamChain(await events.readStream(streams.run(runId)));
    for (const broken of chain.breaks) process.stdout.write(`run ${runId}: ${describeChainBreak(broken)}\n`);
    const result = replayRun(log, DEFAULT_RUN_LIMITS, prior);
    if (result.identical && chain.breaks.length > 0) return false;
    if (result.identical) {
      const { copied = 0 } = result;
      const forkedFrom = log[0].type === 'RunStarted' ? log[0].data.forkedFrom : undefined;
      const head = copied > 0 ? ` after the ${copied} copied as recorded from run ${forkedFrom?.runId}` : '';
      process.stdout.write(
        `run ${runId}: ${result.events - copied} events decided again in ${result.decisions} decisions${head}, all identical (no model, tool or reviewer was asked)\n`,
      );
      return true;
    }
    const show = (event: { type: string; data: unknown } | null) =>
      event ? JSON.stringify({ type: event.type, data: event.data }) : '(nothing)';
    process.stdout.write(
      `run ${runId}: event ${result.index} differs (${result.why})\n  recorded: ${show(result.expected)}\n  decided:  ${show(result.actual)}\n`,
    );
    return false;
  } finally {
    await events.close();
  }
}

/** `stagecraft audit`: the invariants of DESIGN.md over one stored run, or over every run in the store; true when none is broken. */
export async function auditStore(store: string, runId?: string): Promise<boolean> {
  const events = openEventStore(store);
  try {
    const runIds = runId
      ? [runId]
      : (await events.readAll()).flatMap((e) => (e.type === 'RunStarted' ? [(e.data as { runId: string }).runId] : []));
    let broken = 0;
    for (const id of runIds) {
      const log = await readEvents(events, streams.run(id), runEvents);
      const findings =
        log.length === 0 ? [{ index: 0, type: '', invariant: 'starts-with-run-started', message: `no run ${id}` }] : auditRun(log);
      for (const f of findings)
        process.stdout.write(`run ${id}: event ${f.index}${f.type ? ` (${f.type})` : ''} breaks ${f.invariant}: ${f.message}\n`);
      broken += findings.length;
    }
    // The invariants are checked over what the log holds; the hash chain says whether it holds what was appended.
    const chain = runId ? verifyStreamChain(await events.readStream(streams.run(runId))) : await verifyStoreChain(events);
    for (const b of chain.breaks) process.stdout.write(`${describeChainBreak(b)}\n`);
    process.stdout.write(`${describeChainReport(chain)}\n`);
    process.stdout.write(`audited ${runIds.length} run(s): ${broken === 0 ? 'every invariant holds' : `${broken} finding(s)`}\n`);
    return broken === 0 && chain.breaks.length === 0;
  } finally {
    await events.close();
  }
}

export interface RunsListFlags {
  stuck?: boolean;
  json?: boolean;
  limit?: number;
  status?: string;
}

/** The `runs.list` request the flags ask for, validated as the memory service validates it. */
export function runsListRequest(flags: RunsListFlags): RunsListRequest {
  const parsed = RunsListRequest.safeParse({ status: flags.status, stuck: flags.stuck ? true : undefined, limit: flags.limit });
  if (!parsed.success) throw validationError(parsed.error, 'runs list options');
  return parsed.data;
}

/**
 * `runs.list` answered from the store itself: the runs view caught up from the memory service's
 * checkpoint (the tail only; the checkpoint is left as it is), then queried, priced and judged stuck
 * the way the memory service does it, with its settings read from the same environment.
 */
export async function listRunsInStore(
  store: EventStore,
  request: RunsListRequest,
  config: Pick<MemoryConfig, 'prices' | 'stuckAfterMs'>,
  now: Date,
): Promise<RunsListReply> {
  const checkpoints = readOnlyCheckpoints(store.checkpoints);
  const view = await catchUpProjection(store, checkpoints, runsModel);
  const position = (await checkpoints.load(runsModel.name))?.position ?? 0n;
  const idleness = { now, idleMs: config.stuckAfterMs };
  const { status, conversationId, stuck, limit, projectRoot } = request;
  const runs = listRuns(view, {
    status,
    conversationId,
    limit,
    stuck: stuck === undefined ? undefined : { ...idleness, only: stuck },
    visible: projectRoot === undefined ? undefined : (root) => root === projectRoot,
  });
  return { runs: runs.map((run) => summarize(run, config.prices, idleness)), position: String(position) };
}

/** `stagecraft runs list`: embedded reads the store; with a NATS URL the memory service answers `runs.list`. */
export async function listRunsCommand(flags: RunsListFlags, config: ShellConfig): Promise<void> {
  const request = runsListRequest(flags);
  let reply: RunsListReply;
  if (config.natsUrl) {
    const bus = await connectNatsBus({ servers: config.natsUrl, auth: config.natsAuth }, 'stagecraft-cli');
    try {
      const requester = createRequester(bus, { prefix: config.prefix, newId: randomUUID, timeoutMs: config.requestTimeoutMs });
      reply = await requester.request('runs.list', request);
    } finally {
      await bus.close();
    }
  } else {
    const store = openEventStore(config.store);
    try {
      reply = await listRunsInStore(store, request, memoryConfigFromEnv(process.env), new Date());
    } finally {
      await store.close();
    }
  }
  process.stdout.write(flags.json ? `${JSON.stringify(reply)}\n` : `${formatRuns(reply.runs, new Date())}\n`);
}
