import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { AgentContext, RequestPermissionResponse, ToolCallContent } from '@agentclientprotocol/sdk';
import type { FeedData } from '@stagecraft/contracts';
import type { Requester } from '@stagecraft/messaging';
import { toolKind, toolLocations, toolTitle } from './tool-calls';

const ALLOW = 'allow_once';
const REJECT = 'reject_once';

/** What the person is shown before deciding: a write's whole new text against the file as it is, a patch or a command in full. */
async function proposed(projectRoot: string, tool: string | undefined, args: Record<string, unknown>): Promise<ToolCallContent[]> {
  if (tool === 'write_file' && typeof args['path'] === 'string' && typeof args['content'] === 'string') {
    const path = isAbsolute(args['path']) ? args['path'] : join(projectRoot, args['path']);
    const before = await readFile(path, 'utf8').catch(() => null);
    return [{ type: 'diff', path, oldText: before, newText: args['content'] }];
  }
  const shown =
    tool === 'apply_patch'
      ? args['patch']
      : tool === 'run_command'
        ? [args['command'], ...((args['args'] as unknown[]) ?? [])].join(' ')
        : undefined;
  return typeof shown === 'string' ? [{ type: 'content', content: { type: 'text', text: shown } }] : [];
}

/** The reason a client may give with a rejection (`_meta.reason`, on the response or its outcome). */
function reasonOf(response: RequestPermissionResponse): string | undefined {
  const outcome = response.outcome as { _meta?: Record<string, unknown> | null };
  const candidates = [response._meta?.['reason'], outcome._meta?.['reason']];
  const reason = candidates.find((r): r is string => typeof r === 'string' && r.trim() !== '');
  return reason?.slice(0, 2_000);
}

/**
 * A run waits for the person: the editor asks (allow once / reject), and the answer goes back as
 * `approval.answer`, naming exactly the approval shown. A withdrawn request is a denial.
 */
export async function askPermission(
  client: AgentContext,
  requester: Requester,
  session: { sessionId: string; projectRoot: string; runId: string },
  approval: FeedData<'ApprovalRequested'>,
): Promise<void> {
  const args = approval.arguments ?? {};
  const tool = approval.tool;
  const response = await client.request('session/request_permission', {
    sessionId: session.sessionId,
    toolCall: {
      toolCallId: approval.callId ?? approval.approvalId,
      title: tool ? toolTitle(tool, args) : approval.summary,
      kind: tool ? toolKind(tool) : 'other',
      status: 'pending',
      locations: tool ? toolLocations(session.projectRoot, tool, args) : [],
      content: await proposed(session.projectRoot, tool, args),
    },
    options: [
      { optionId: ALLOW, name: 'Allow once', kind: 'allow_once' },
      { optionId: REJECT, name: 'Reject', kind: 'reject_once' },
    ],
  });
  const allowed = response.outcome.outcome === 'selected' && response.outcome.optionId === ALLOW;
  const reason = allowed
    ? undefined
    : (reasonOf(response) ?? (response.outcome.outcome === 'cancelled' ? 'the editor withdrew the request' : undefined));
  await requester.request('approval.answer', {
    id: session.runId,
    approvalId: approval.approvalId,
    decision: allowed ? 'approve' : 'deny',
    ...(reason !== undefined && { reason }),
  });
}
