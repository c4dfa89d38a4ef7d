import type { ToolExecuteReply, ToolExecuteRequest, ToolResult } from '@stagecraft/contracts';
import type { RequestContext } from '@stagecraft/messaging';
import { recordToolCall, secondsSince, withSpan } from '@stagecraft/telemetry';
import type { ToolCallPorts } from '../dependencies';
import { executeToolCall } from './execute-tool-call';

/** What became of a call: `ok`, `failed` (the tool ran and said no), `replayed` (answered from the log), or the refusal's code. */
function outcomeOf(result: ToolResult): string {
  if (result.replayed) return 'replayed';
  return result.ok ? 'ok' : 'failed';
}

/** `tool.execute`, as a span (`tool call`: tool, outcome) and a measurement (`stagecraft_tool_calls_total`). */
export function execute(request: ToolExecuteRequest, ports: ToolCallPorts, context: RequestContext): Promise<ToolExecuteReply> {
  const started = performance.now();
  const attributes = { 'stagecraft.tool': request.tool, 'stagecraft.call_id': request.callId, 'stagecraft.run_id': request.runId };
  return withSpan('tool call', attributes, async (span) => {
    let outcome = 'INTERNAL';
    try {
      const result = await executeToolCall(ports, request, context);
      outcome = outcomeOf(result);
      return result;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string') outcome = code;
      throw error;
    } finally {
      span.setAttribute('stagecraft.outcome', outcome);
      recordToolCall(request.tool, outcome, secondsSince(started));
    }
  });
}
