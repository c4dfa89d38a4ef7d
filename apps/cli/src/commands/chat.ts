import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { ApprovalPolicy, RequestedRunLimits, StagecraftError, UserMode } from '@stagecraft/contracts';
import { ShellConfig } from '@stagecraft/service-shell';
import { ChatResult, RunEnd, answerHint, approvalHandling, cancelOnInterrupt, connectSystem, followRun } from './session';

const write = (line: string) => process.stdout.write(`${line}\n`);

export interface ChatFlags {
  root: string;
  mode: UserMode;
  reasoning?: boolean;
  conversation?: string;
  /** Drive the conversation's unfinished runs on first (`--conversation`, or the latest in the root), then send the message, if any. */
  continue?: boolean;
  json?: boolean;
  /** With `json`: the model's visible text as delta lines while it streams, before the result. */
  stream?: boolean;
  timeout: number;
  /** Which tool calls wait for a person; `never` (the default) sends no choice at all. */
  approve?: ApprovalPolicy;
  /** Bounds for this run (`--max-tool-rounds`, `--max-delivery-checks`); left out: the service's settings. */
  maxToolRounds?: number;
  maxDeliveryChecks?: number;
}

/**
 * Sends one message and follows its run to the end, live; embedded unless a NATS URL is given. With
 * `continue`, the conversation's unfinished runs are driven on first; without it, they are named, not
 * silently left behind.
 */
export async function chat(message: string | undefined, flags: ChatFlags, config: ShellConfig): Promise<ChatResult & RunEnd> {
  const system = await connectSystem(config, Boolean(flags.json));
  try {
    const runId = randomUUID();
    const projectRoot = resolve(flags.root);
    const earlier = await continueEarlierRuns(system, config, { ...flags, projectRoot });
    if (earlier.stop) return earlier.stop;
    const conversation = earlier.conversationId;
    if (message === undefined) return earlier.last ?? nothingToContinue(conversation);
    const approve = flags.approve && flags.approve !== 'never' ? { approve: flags.approve } : {};
    const limits = limitsOf(flags);
    const approvals = approvalHandling(config, system.requester);
    const interrupt = cancelOnInterrupt(system.requester, () => runId);
    const result = await followRun(
      system.bus,
      config.prefix,
      runId,
      { ...flags, root: projectRoot, approvals, spentFrom: system.requester },
      () =>
        system.requester.request('conversation.send', {
          runId,
          conversationId: conversation,
          message,
          userMode: flags.mode,
          reasoningEnabled: Boolean(flags.reasoning),
          projectRoot,
          ...approve,
          ...(limits && { limits }),
        }),
    );
    interrupt.dispose();
    if (result.waiting && !flags.json) write(answerHint(runId, projectRoot, config));
    return interrupt.pressed ? { ...result, interrupted: true } : result;
  } finally {
    await system.close();
  }
}

/** The bounds asked for on the command line, or none: a request without them runs under the service's settings. */
function limitsOf({ maxToolRounds, maxDeliveryChecks }: ChatFlags): RequestedRunLimits | undefined {
  if (maxToolRounds === undefined && maxDeliveryChecks === undefined) return undefined;
  return {
    ...(maxToolRounds !== undefined && { maxToolIterations: maxToolRounds }),
    ...(maxDeliveryChecks !== undefined && { maxDeliveryChecks }),
  };
}

type EarlierRuns = { conversationId?: string; last?: ChatResult & RunEnd; stop?: ChatResult & RunEnd };

/**
 * Before a message: the conversation's unfinished runs. `continue` drives them on, oldest first, and
 * stops at one that fails or waits for a person; otherwise each is named on stderr with how to drive it on.
 */
async function continueEarlierRuns(
  system: Awaited<ReturnType<typeof connectSystem>>,
  config: ShellConfig,
  flags: ChatFlags & { projectRoot: string },
): Promise<EarlierRuns> {
  const { findRuns, followResumed, unfinishedNotice } = await import('./resume.js');
  const conversationId = flags.continue
    ? (flags.conversation ?? (await findRuns(config, system.requester, { projectRoot: flags.projectRoot, limit: 1 }))[0]?.conversationId)
    : flags.conversation;
  if (flags.continue && conversationId === undefined)
    throw new StagecraftError('NOT_FOUND', `no conversation in ${flags.projectRoot} to continue`);
  if (conversationId === undefined) return {};
  const unfinished = (await findRuns(config, system.requester, { conversationId, status: 'running', limit: 50 })).reverse();
  if (!flags.continue) {
    for (const line of unfinishedNotice(conversationId, unfinished)) process.stderr.write(`${line}\n`);
    return { conversationId };
  }
  let last: (ChatResult & RunEnd) | undefined;
  for (const run of unfinished) {
    if (run.pendingApproval) {
      for (const line of unfinishedNotice(conversationId, [run])) process.stderr.write(`${line}\n`);
      continue;
    }
    last = await followResumed(system, config, run.runId, flags);
    if (last.failed || last.waiting || last.interrupted) return { conversationId, stop: last };
  }
  return { conversationId, last };
}

const nothingToContinue = (conversationId: string | undefined): ChatResult & RunEnd => {
  process.stderr.write(`stagecraft: conversation ${conversationId ?? '-'} has no unfinished run to continue\n`);
  return {
    runId: '',
    conversationId: conversationId ?? '',
    deliveryState: null,
    answer: null,
    qaReport: null,
    failed: false,
    waiting: null,
  };
};
