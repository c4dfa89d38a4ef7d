import { resolve } from 'node:path';
import { ApprovalAnswerReply, StagecraftError } from '@stagecraft/contracts';
import { ShellConfig } from '@stagecraft/service-shell';
import { EXIT } from '../exit-codes';
import { paint, wantsColour } from './diff-view';
import { proposedChangeLines } from './proposed-change';
import { ChatResult, RunEnd, answerHint, approvalHandling, connectSystem, followRun } from './session';
import { followWorkflow } from './workflow';

export interface ApproveFlags {
  deny?: boolean;
  reason?: string;
  /** The project the run works in: the embedded system serves only it. */
  root?: string;
  json?: boolean;
  timeout: number;
}

/**
 * The approval the person was shown: the answer names it, so it cannot land on another one. Nothing
 * waiting is the conflict the service would answer.
 */
function awaited(id: string, pending: { approvalId: string } | null): string {
  if (!pending) throw new StagecraftError('CONFLICT', `${id} waits for no approval`);
  return pending.approvalId;
}

/**
 * `stagecraft approve`: answers what a run waits for, then follows the run on to its end (or to the
 * next approval) like `chat`. Embedded unless a NATS URL is given: the embedded system drives the
 * answered run in this process.
 */
export async function approve(id: string, flags: ApproveFlags, config: ShellConfig): Promise<ChatResult & RunEnd> {
  const root = flags.root ? resolve(flags.root) : undefined;
  // Resumed: a workflow answered here goes on in this process.
  const system = await connectSystem(root && !config.natsUrl ? { ...config, projectRoots: [root] } : config, Boolean(flags.json), {
    resume: true,
  });
  try {
    const workflow = await system.requester.request('workflow.get', { workflowId: id }).catch(() => null);
    if (workflow !== null) {
      if (!flags.json && workflow.pendingApproval)
        process.stdout.write(`stagecraft: ${flags.deny ? 'denying' : 'approving'} ${workflow.pendingApproval.summary}\n`);
      await system.requester.request('approval.answer', {
        id,
        approvalId: awaited(id, workflow.pendingApproval),
        decision: flags.deny ? 'deny' : 'approve',
        reason: flags.reason,
      });
      const exit = await followWorkflow(system.requester, id, flags, Boolean(config.natsUrl), root ?? '<root>');
      // A workflow that stopped again waits for its next gate: report that one, as it is stored.
      const after = exit === EXIT.waiting ? await system.requester.request('workflow.get', { workflowId: id }) : null;
      // Or one of its agents' tool calls waits (`stagecraft approve <runId>`).
      const pending =
        after?.pendingApproval ?? after?.phases.flatMap((p) => p.agents).find((a) => a.pendingApproval)?.pendingApproval ?? null;
      const waiting = pending === null ? null : { approvalId: pending.approvalId, kind: pending.kind, summary: pending.summary };
      return {
        runId: id,
        conversationId: id,
        deliveryState: null,
        answer: workflow.summary,
        qaReport: null,
        failed: exit === EXIT.failed,
        waiting,
      };
    }
    const { run } = await system.requester.request('conversation.run.get', { runId: id });
    const decision = flags.deny ? 'deny' : 'approve';
    if (!flags.json && run.pendingApproval) {
      process.stdout.write(`stagecraft: ${decision === 'approve' ? 'approving' : 'denying'} ${run.pendingApproval.summary}\n`);
      const style = paint(wantsColour(process.stdout, process.env));
      for (const line of await proposedChangeLines(run.pendingApproval, root, style)) process.stdout.write(`${line}\n`);
    }
    const result = await followRun(
      system.bus,
      config.prefix,
      id,
      { json: flags.json, timeout: flags.timeout, approvals: approvalHandling(config, system.requester), root },
      async (): Promise<ApprovalAnswerReply & { conversationId: string }> => ({
        ...(await system.requester.request('approval.answer', {
          id,
          approvalId: awaited(id, run.pendingApproval),
          decision,
          reason: flags.reason,
        })),
        conversationId: run.conversationId,
      }),
    );
    if (result.waiting && !flags.json) process.stdout.write(`${answerHint(id, root ?? '<root>', config)}\n`);
    return result;
  } finally {
    await system.close();
  }
}
