import { resolve } from 'node:path';
import { ApprovalAnswerReply, EventData } from '@stagecraft/contracts';
import { ShellConfig } from '@stagecraft/service-shell';
import { ChatResult, answerHint, approvalHandling, connectSystem, followRun } from './chat';

export interface ApproveFlags {
  deny?: boolean;
  reason?: string;
  /** The project the run works in: the embedded system serves only it. */
  root?: string;
  json?: boolean;
  timeout: number;
}

/**
 * `stagecraft approve`: answers what a run waits for, then follows the run on to its end (or to the
 * next approval) like `chat`. Embedded unless a NATS URL is given: the embedded system drives the
 * answered run in this process.
 */
export async function approve(
  id: string,
  flags: ApproveFlags,
  config: ShellConfig,
): Promise<ChatResult & { failed: boolean; waiting: EventData<'ApprovalRequested'> | null }> {
  const root = flags.root ? resolve(flags.root) : undefined;
  const system = await connectSystem(root && !config.natsUrl ? { ...config, projectRoots: [root] } : config, Boolean(flags.json));
  try {
    const { run } = await system.requester.request('conversation.run.get', { runId: id });
    const decision = flags.deny ? 'deny' : 'approve';
    if (!flags.json && run.pendingApproval)
      process.stdout.write(`stagecraft: ${decision === 'approve' ? 'approving' : 'denying'} ${run.pendingApproval.summary}\n`);
    const result = await followRun(
      system.bus,
      config.prefix,
      id,
      { json: flags.json, timeout: flags.timeout, approvals: approvalHandling(config, system.requester) },
      async (): Promise<ApprovalAnswerReply & { conversationId: string }> => ({
        ...(await system.requester.request('approval.answer', { id, decision, reason: flags.reason })),
        conversationId: run.conversationId,
      }),
    );
    if (result.waiting && !flags.json) process.stdout.write(`${answerHint(id, root ?? '<root>', config)}\n`);
    return result;
  } finally {
    await system.close();
  }
}
