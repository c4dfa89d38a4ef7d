import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import { ApprovalDecision, FeedData, QAReport, RunCost, foldFeedRun } from '@stagecraft/contracts';
import { MessageBus, Requester, RunFeedEvent, connectNatsBus, createRequester, subscribeRunEvents } from '@stagecraft/messaging';
import { DEFAULT_EVENT_STORE_URL } from '@stagecraft/event-store';
import { ShellConfig, startHost } from '@stagecraft/service-shell';
import { createLogger } from '@stagecraft/telemetry';
import { allServices } from '../services';
import { describeEvent } from './describe-event';
import {
  ChangedFile,
  DIFF_LINES_SHOWN,
  RunUsage,
  changedFiles,
  changedFilesLines,
  paint,
  printable,
  renderChange,
  wantsColour,
} from './diff-view';
import { followLiveText, followVisibleText } from './live-text';
import { proposedChangeLines } from './proposed-change';
import { TokenTotals, formatSpent, tokenTotals } from './runs-table';
import { chooseModel } from './model';

// What every command that follows a run shares: connecting to a system, following a run on its public feed, approvals at the terminal, Ctrl-C.
export interface ChatResult {
  runId: string;
  conversationId: string;
  deliveryState: string | null;
  answer: string | null;
  qaReport: QAReport | null;
  /** What the run's model calls used over every model, and their cost at the memory service's prices; absent when not asked or not known. */
  tokens?: TokenTotals;
  cost?: RunCost;
  /** Every file the run's writes changed, once, with the lines added and removed. */
  changedFiles?: ChangedFile[];
  /** The run's tokens (from the runs view, or summed from its feed) and, when known, its cost. */
  usage?: RunUsage;
}

const write = (line: string) => process.stdout.write(`${line}\n`);

type Approval = FeedData<'ApprovalRequested'>;

/** How a followed run ended, for the exit code: failed (with the failure's code) or left waiting for a person. */
export interface RunEnd {
  failed: boolean;
  failureCode?: string;
  waiting: Approval | null;
  /** The run was cancelled (and counts as failed for the exit code), with who cancelled it and why. */
  cancelled?: { by: string; reason: string };
  /** The person pressed Ctrl-C: the process exits 130 once the run has settled. */
  interrupted?: boolean;
}

/**
 * What a follower does when the run asks for an approval: ask the person at the terminal, stop (the run
 * waits in the store for `stagecraft approve`), or keep following while another process answers.
 */
export type ApprovalHandling = { kind: 'ask'; requester: Requester } | { kind: 'stop' } | { kind: 'follow' };

/** On a terminal the person is asked; otherwise the embedded system stops and a distributed one is followed. */
export function approvalHandling(config: ShellConfig, requester: Requester): ApprovalHandling {
  if (process.stdin.isTTY) return { kind: 'ask', requester };
  return config.natsUrl ? { kind: 'follow' } : { kind: 'stop' };
}

/** `y`/`yes` approves; an empty answer or `n`/`no` denies; any other text denies with that text as the reason. */
export function readApprovalAnswer(text: string): { decision: ApprovalDecision; reason?: string } {
  const answer = text.trim();
  if (/^(y|yes)$/i.test(answer)) return { decision: 'approve' };
  if (answer === '' || /^(n|no)$/i.test(answer)) return { decision: 'deny' };
  return { decision: 'deny', reason: answer };
}

async function askAtTerminal(runId: string, approval: Approval, requester: Requester): Promise<void> {
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const { decision, reason } = readApprovalAnswer(await terminal.question(`Allow ${approval.summary}? [y/N/reason] `));
    await requester.request('approval.answer', { id: runId, approvalId: approval.approvalId, decision, reason });
  } finally {
    terminal.close();
  }
}

/** How to answer a waiting run from another process (the same store, unless a distributed system answers). */
export function answerHint(runId: string, root: string, config: ShellConfig): string {
  const store = config.store === DEFAULT_EVENT_STORE_URL ? '' : ` --store ${config.store}`;
  return `answer with: stagecraft approve ${runId} [--deny --reason TEXT] --root ${root}${store}`;
}

/** A system to talk to: a running distributed one over NATS, or all six services started in this process. */
export async function connectSystem(
  config: ShellConfig,
  json: boolean,
  /** `resume`: the embedded system goes on with unfinished runs and workflows (default: it leaves them). */
  options: { resume?: boolean } = {},
): Promise<{ bus: MessageBus; requester: Requester; close(): Promise<void> }> {
  const logger = createLogger({ service: 'stagecraft', level: config.logLevel });
  let bus: MessageBus;
  let close: () => Promise<void>;
  if (config.natsUrl) {
    bus = await connectNatsBus({ servers: config.natsUrl, auth: config.natsAuth }, 'stagecraft-cli');
    close = () => bus.close();
    if (!json) write(`stagecraft: using the distributed system at ${config.natsUrl}`);
  } else {
    const model = await chooseModel(process.env, logger);
    if (!json) write(`stagecraft: embedded, store ${config.store}, model: ${model.describe}`);
    const host = await startHost({
      definitions: allServices({ gateway: model.gateway, resume: options.resume ?? false }),
      transport: 'inproc',
      store: config.store,
      config,
      env: process.env,
    });
    bus = host.ports.bus;
    close = async () => {
      await host.close();
      await model.scripted?.close();
    };
  }
  const requester = createRequester(bus, { prefix: config.prefix, newId: randomUUID, timeoutMs: config.requestTimeoutMs });
  return { bus, requester, close };
}

/**
 * Follows a run live on its public feed, printing each event (or its JSON), after `start` has asked
 * for it; then the result, the feed folded as every client folds it (or, when the feed began after the
 * run started, as its end says). An approval the run asks for is handled as `approvals` says; when the
 * follower stops there, the result says what the run waits for.
 */
export async function followRun<R extends { conversationId: string }>(
  bus: MessageBus,
  prefix: string,
  runId: string,
  flags: {
    json?: boolean;
    /** With `json`: the model's visible text as `{"type":"delta",text,stage,requestId}` lines while it streams. */
    stream?: boolean;
    timeout: number;
    approvals?: ApprovalHandling;
    spentFrom?: Requester;
    /** The project the run works in, for the diff of a write that waits for approval (else the run's own, from its start). */
    root?: string;
  },
  start: () => Promise<R>,
): Promise<ChatResult & Omit<R, keyof ChatResult> & RunEnd> {
  const events: RunFeedEvent[] = [];
  const approvals = flags.approvals ?? { kind: 'follow' };
  let timer: NodeJS.Timeout | undefined;
  const style = paint(!flags.json && wantsColour(process.stdout, process.env));
  // On a terminal, the model's text streams into the scrollback, with its stage.
  const live = !flags.json && process.stdout.isTTY ? followLiveText(bus, prefix, runId, process.stdout, style) : null;
  const deltas =
    flags.json && flags.stream ? followVisibleText(bus, prefix, runId, (d) => write(JSON.stringify({ type: 'delta', ...d }))) : null;
  const rootOf = () => flags.root ?? events.find((e) => e.type === 'RunStarted')?.data.projectRoot;
  const ended = new Promise<RunFeedEvent>((resolveEnd, reject) => {
    timer = setTimeout(() => reject(new Error(`run ${runId} did not finish within ${flags.timeout} ms`)), flags.timeout);
    let cancelledSeen = false;
    subscribeRunEvents(bus, prefix, runId, (event) => {
      events.push(event);
      if (flags.json) write(JSON.stringify(event));
      else {
        const line = describeEvent(event);
        if (line) live?.clear();
        if (line) write(printable(line));
        if (event.type === 'ToolCallCompleted')
          for (const change of event.data.changes ?? []) renderChange(change, style, { maxLines: DIFF_LINES_SHOWN, runId }).forEach(write);
      }
      if (event.type === 'StageEntered') live?.stage(event.data.stage);
      if (event.type === 'RunCompleted' || event.type === 'RunFailed') resolveEnd(event);
      // A cancelled run has settled once the calls it had in flight are recorded (interrupted, usually);
      // folded only from the cancellation on, which is a few events from the end.
      if (event.type === 'RunCancelled') cancelledSeen = true;
      if (cancelledSeen && cancelledAndSettled(events)) resolveEnd(event);
      if (event.type !== 'ApprovalRequested') return;
      live?.stop();
      // The whole change is shown before anyone is asked, and before the follower stops to wait.
      const shown = flags.json ? Promise.resolve() : proposedChangeLines(event.data, rootOf(), style).then((lines) => lines.forEach(write));
      if (approvals.kind === 'stop') void shown.then(() => resolveEnd(event));
      else if (approvals.kind === 'ask') shown.then(() => askAtTerminal(runId, event.data, approvals.requester)).catch(reject);
    });
  });
  await bus.flush();
  const reply = await start().catch((error: unknown) => {
    clearTimeout(timer);
    live?.stop();
    deltas?.();
    throw error;
  });
  const last = await ended.finally(() => {
    clearTimeout(timer);
    live?.stop();
    deltas?.();
  });
  // The result is the public feed folded as every client folds it, never the stored events.
  const run = foldFeedRun(events);
  const completed = last.type === 'RunCompleted' ? last.data : null;
  const reviewed = events.filter((e) => e.type === 'QAReportIssued').at(-1);
  const spent = flags.spentFrom ? await spentBy(flags.spentFrom, runId, events) : {};
  const files = changedFiles(events.flatMap((e) => (e.type === 'ToolCallCompleted' ? (e.data.changes ?? []) : [])));
  const result = {
    ...reply,
    runId,
    conversationId: reply.conversationId,
    deliveryState: run.status === 'completed' ? run.deliveryState : (completed?.deliveryState ?? null),
    answer: run.status === 'completed' ? run.answer : (completed?.answer ?? null),
    qaReport: run.status === 'new' ? (reviewed?.type === 'QAReportIssued' ? reviewed.data.report : null) : run.qaReport,
    ...spent,
    changedFiles: files,
    usage: usageOf(spent, events),
  };
  const waiting = last.type === 'ApprovalRequested' ? last.data : null;
  if (flags.json) write(JSON.stringify(waiting ? { ...result, pendingApproval: waiting } : result));
  // On a terminal the answer has streamed already, unless it was not one model answer as it stands.
  else if (result.answer !== null) {
    if (!live?.streamed(result.answer)) write(`\n${printable(result.answer)}\n`);
  } else if (waiting) write(`⏸ waiting for approval: ${waiting.summary}`);
  const cancelled = run.status === 'cancelled' ? run.cancellation : undefined;
  if (cancelled && !flags.json) write(`⊘ run ${runId} was cancelled by ${cancelled.by}${cancelled.reason ? `: ${cancelled.reason}` : ''}`);
  if (!flags.json) changedFilesLines(files, style).forEach(write);
  if (result.tokens && result.cost && !flags.json) write(formatSpent(result.tokens, result.cost));
  return {
    ...result,
    failed: last.type === 'RunFailed' || cancelled !== undefined,
    failureCode: last.type === 'RunFailed' ? last.data.code : cancelled ? 'CANCELLED' : undefined,
    waiting,
    ...(cancelled ? { cancelled } : {}),
  };
}

/**
 * The run's tokens and cost as the runs view has them once it has read the last event followed (`runs.get`
 * prices them, so the follower needs no price table). Nothing when it cannot say: the run's result matters more.
 */
async function spentBy(
  requester: Requester,
  runId: string,
  events: readonly RunFeedEvent[],
): Promise<{ tokens?: TokenTotals; cost?: RunCost }> {
  const positions = events.flatMap((e) => (e.position === undefined ? [] : [BigInt(e.position)]));
  const minPosition = positions.length ? String(positions.reduce((a, b) => (a > b ? a : b))) : undefined;
  try {
    const { run } = await requester.request('runs.get', { runId, ...(minPosition ? { minPosition } : {}) });
    return run ? { tokens: tokenTotals(run.tokens), cost: run.cost } : {};
  } catch {
    return {};
  }
}

/**
 * The run's tokens: the runs view's, over every model call (the review's too), when it answered; else
 * what the model answers on the feed reported. Its cost only as the runs view priced it.
 */
function usageOf(spent: { tokens?: TokenTotals; cost?: RunCost }, events: readonly RunFeedEvent[]): RunUsage {
  const fromFeed = events.flatMap((e) => (e.type === 'ModelResponded' && e.data.usage ? [e.data.usage] : []));
  const tokens = spent.tokens ?? {
    promptTokens: fromFeed.reduce((n, u) => n + u.promptTokens, 0),
    cachedPromptTokens: fromFeed.reduce((n, u) => n + (u.cachedPromptTokens ?? 0), 0),
    completionTokens: fromFeed.reduce((n, u) => n + u.completionTokens, 0),
  };
  return {
    inputTokens: tokens.promptTokens,
    outputTokens: tokens.completionTokens,
    cachedTokens: tokens.cachedPromptTokens,
    ...(spent.cost ? { cost: spent.cost } : {}),
  };
}

/** Cancelled, and no tool call of its last step is still waiting for its result. */
function cancelledAndSettled(events: readonly RunFeedEvent[]): boolean {
  const run = foldFeedRun(events);
  return run.status === 'cancelled' && run.openCalls.length === 0;
}

/**
 * Ctrl-C while a run is followed: the first press cancels the run (`run.cancel`, by `user`) and the
 * follower goes on until the run has settled; a second press leaves at once (exit 130), leaving the run
 * as the log has it. Returns what undoes the handler, and whether a press came.
 */
export function cancelOnInterrupt(requester: Requester, runId: () => string | null): { dispose(): void; readonly pressed: boolean } {
  let presses = 0;
  const onInterrupt = () => {
    presses += 1;
    const id = runId();
    if (presses > 1 || id === null) {
      process.stderr.write(`\nstagecraft: leaving at once${id ? `; run ${id} is left as its log has it` : ''}\n`);
      process.exit(130);
    }
    process.stderr.write(`\nstagecraft: cancelling run ${id}; waiting for it to settle (Ctrl-C again to leave at once)\n`);
    requester.request('run.cancel', { runId: id, by: 'user', reason: 'Ctrl-C at the terminal' }).then(
      (reply) => {
        if (reply.outcome === 'ended') process.stderr.write(`stagecraft: run ${id} had already ended (${reply.status})\n`);
      },
      (error: unknown) => process.stderr.write(`stagecraft: run ${id} could not be cancelled: ${(error as Error).message}\n`),
    );
  };
  process.on('SIGINT', onInterrupt);
  return {
    dispose: () => process.off('SIGINT', onInterrupt),
    get pressed() {
      return presses > 0;
    },
  };
}
