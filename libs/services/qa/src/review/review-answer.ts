import type { Logger } from 'pino';
import { reviewNotCompleted } from '@stagecraft/contracts';
import type { ChatMessage, QAModelCall, QaReviewReply, QaReviewRequest, StagePolicy, ToolCall } from '@stagecraft/contracts';
import { RESTART_WINDOW_MS, requestRetrying } from '@stagecraft/messaging';
import type { Requester, RequestContext } from '@stagecraft/messaging';
import { stageModelOf } from '@stagecraft/model-gateway';
import type { ModelGateway } from '@stagecraft/model-gateway';
import { parseReasoning, stripReasoning } from '@stagecraft/reasoning';
import type { NewId } from '@stagecraft/service-shell';
import { toolSpecs } from '@stagecraft/tools';
import { parseQaReport, withReasoningFailure } from './parse-report';
import { reviewToolCall } from './review-tool-call';
import { reportFormat, reportText } from './structured-report';

export interface ReviewPorts {
  requester: Requester;
  gateway: ModelGateway;
  newId: NewId;
  logger: Logger;
}

/** Enough to confirm a suspicion or two; the review is not a second attempt at the task. */
export const MAX_MODEL_CALLS = 4;

const NO_TOOL_CALLS = 'No tool calls were made for this answer.';
const LAST_CALL = 'That was the last tool call this review may make. Write the report now.';
const REASONING_AGAIN = (problem: string) =>
  `Your report came without the reasoning this review requires (${problem}). Reply again: the reasoning block in the micro format first, as the instructions above show, then the JSON report.`;

/** With reasoning on, why the reviewer's final reply does not carry the micro block it was asked for; null when it does. */
function reasoningProblem(content: string, reasoningEnabled: boolean): string | null {
  if (!reasoningEnabled) return null;
  const parsed = parseReasoning(content, 'micro');
  return parsed.ok ? null : `micro reasoning ${parsed.problem}: ${parsed.detail}`;
}

// Reasoning never re-enters a model request, the answer's included.
const answerMessage = (answer: string): ChatMessage => ({
  role: 'user',
  content: `## The answer to review\n\n${stripReasoning(answer) || '(the answer is empty)'}\n\nReview it as instructed and finish with the JSON report.`,
});

/**
 * `qa.review`: an advisory report on the answer, from a bounded loop of model calls that may only
 * read the project. The answer itself is never changed, and nothing here can fail the run: an
 * unreadable report or an unreachable model comes back as a `concerns` report that says so.
 */
export async function reviewAnswer(ports: ReviewPorts, request: QaReviewRequest, context: RequestContext): Promise<QaReviewReply> {
  const { requester, gateway, logger } = ports;
  const linked = { correlationId: context.correlationId };
  const { userMode, reasoningEnabled } = request;
  const { policy } = await requester.request('policy.decide', { userMode, reasoningEnabled, stage: 'qa_review' }, linked);
  const variables = {
    project_root: request.projectRoot,
    user_input: request.userInput,
    tool_summary: request.toolSummary ?? NO_TOOL_CALLS,
    last_step_outcome: request.lastStepOutcome ?? '',
  };
  // Assembling is a pure function of the request: asked again while prompt assembly restarts, as the run does.
  const { system } = await requestRetrying(
    requester,
    'prompt.assemble',
    { policy, variables, instructions: [] },
    {
      ...linked,
      giveUpAt: Date.now() + RESTART_WINDOW_MS,
      now: Date.now,
      onRetry: (attempt, code) => logger.warn({ runId: request.runId, attempt, code }, 'no prompt assembly answers; asking again'),
    },
  );
  const tools = toolSpecs(policy.tools);
  const messages: ChatMessage[] = [{ role: 'system', content: system }, answerMessage(request.answer)];
  const modelCalls: QAModelCall[] = [];
  // Reasoning is enforced as in the run's stages: corrected once, then the report says it was missing.
  let corrected = false;
  // Asked on every call: any of them may be the final report (0059).
  const structuredOutput = reportFormat(reasoningEnabled);

  for (let call = 1; call <= MAX_MODEL_CALLS; call++) {
    const meta = {
      requestId: ports.newId(),
      runId: request.runId,
      conversationId: request.conversationId,
      stage: 'qa_review' as const,
      userMode,
      reasoningEnabled,
    };
    let response;
    try {
      response = await gateway.complete(meta, messages, tools, { structuredOutput });
    } catch (error) {
      const { code, message } = error as { code?: string; message?: string };
      logger.warn({ runId: request.runId, code, err: message }, 'qa review model call failed');
      return { report: reviewNotCompleted(`${code ?? 'INTERNAL'}: ${message ?? String(error)}`), modelCalls };
    }
    modelCalls.push({
      requestId: meta.requestId,
      model: response.askedModel ?? stageModelOf(gateway, meta.stage),
      latencyMs: response.latencyMs,
      usage: response.usage,
      finishReason: response.finishReason,
      ...(response.structured && { structured: response.structured }),
    });
    if (response.toolCalls.length === 0) {
      const { text, read } = reportText(response, reasoningEnabled);
      logger.info({ runId: request.runId, call, structured: response.structured ?? 'off', read }, 'qa report reply read');
      const problem = reasoningProblem(text, reasoningEnabled);
      if (problem && !corrected && call < MAX_MODEL_CALLS) {
        corrected = true;
        messages.push({ role: 'assistant', content: stripReasoning(text) }, { role: 'user', content: REASONING_AGAIN(problem) });
        continue;
      }
      const report = parseQaReport(text, reasoningEnabled);
      return { report: problem ? withReasoningFailure(report, problem) : report, modelCalls };
    }
    if (call === MAX_MODEL_CALLS) break;
    await appendToolRound(ports, request, policy, response.content, response.toolCalls, messages, context);
    if (call === MAX_MODEL_CALLS - 1) messages.push({ role: 'user', content: LAST_CALL });
  }
  return { report: reviewNotCompleted(`the reviewer was still calling tools after ${MAX_MODEL_CALLS} model calls`), modelCalls };
}

async function appendToolRound(
  ports: ReviewPorts,
  request: QaReviewRequest,
  policy: StagePolicy,
  content: string,
  toolCalls: ToolCall[],
  messages: ChatMessage[],
  context: RequestContext,
): Promise<void> {
  messages.push({ role: 'assistant', content: stripReasoning(content), toolCalls });
  for (const call of toolCalls) {
    messages.push({ role: 'tool', content: await reviewToolCall(ports.requester, request, policy, call, context), toolCallId: call.id });
  }
}
