import { createHash } from 'node:crypto';
import { Id, ToolName, parseToolArguments, toolErrorText } from '@stagecraft/contracts';
import type { QaReviewRequest, StagePolicy, ToolCall } from '@stagecraft/contracts';
import type { Requester, RequestContext } from '@stagecraft/messaging';

/** Stable per run and model call id, so a repeated review replays recorded results instead of reading twice. */
export function qaCallId(runId: string, toolCallId: string): string {
  const id = `${runId}.qa.${toolCallId}`;
  return Id.safeParse(id).success ? id : `qa-${createHash('sha256').update(id).digest('hex').slice(0, 40)}`;
}

const FINISH = 'finish with the JSON report, and say in it what could not be checked';

function notInReview(name: string, policy: StagePolicy, why: string): string {
  const tools = policy.tools.join(', ');
  return toolErrorText({
    code: 'FORBIDDEN_TOOL',
    problem: `${name} is not available in review: the review only reads the project (available: ${tools || 'none'}). ${why}`.trim(),
    retry: tools ? `check the answer with ${tools}, or ${FINISH}` : FINISH,
  });
}

/**
 * Runs one tool call of the reviewer through the tool service, which re-checks it against the QA
 * stage's policy and records it. Whatever happens becomes the text of the tool message the reviewer
 * sees next: a refusal or a failure is something to report on, not a reason to stop the review.
 */
export async function reviewToolCall(
  requester: Requester,
  request: QaReviewRequest,
  policy: StagePolicy,
  call: ToolCall,
  context: RequestContext,
): Promise<string> {
  const tool = ToolName.safeParse(call.name);
  if (!tool.success) return notInReview(call.name, policy, 'It is not a Stagecraft tool.');
  const args = parseToolArguments(call.arguments);
  if (args === null) {
    return toolErrorText({
      code: 'INVALID_ARGUMENTS',
      problem: `the arguments of ${call.name} are not a JSON object: ${call.arguments.slice(0, 200)}`,
      retry: `call ${call.name} again with its arguments as one JSON object`,
    });
  }
  try {
    const result = await requester.request(
      'tool.execute',
      {
        callId: qaCallId(request.runId, call.id),
        runId: request.runId,
        tool: tool.data,
        arguments: args,
        stage: 'qa_review',
        userMode: request.userMode,
        reasoningEnabled: request.reasoningEnabled,
        projectRoot: request.projectRoot,
      },
      { correlationId: context.correlationId },
    );
    return result.output;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    if (code === 'FORBIDDEN_TOOL') return notInReview(call.name, policy, message ?? '');
    return toolErrorText({
      code: code ?? 'INTERNAL',
      problem: message ?? String(error),
      retry: `go on with the other tools, or ${FINISH}`,
    });
  }
}
