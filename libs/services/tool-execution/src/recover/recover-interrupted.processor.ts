import { streams, toolCallEvents } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import type { ToolCallPorts, ToolExecutionDeps } from '../dependencies';
import { reapOrphans, releaseSpawn } from '../running/in-flight';
import { openToolCall, recordInterrupted } from '../tool-call/tool-call-stream';

/** At start-up: calls this host's dead tool service left running are stopped and recorded as interrupted. */
export async function recoverInterruptedCalls(ports: ToolCallPorts): Promise<string[]> {
  const recovered: string[] = [];
  for (const orphan of reapOrphans(ports.inFlightDir)) {
    const [first] = await readEvents(ports.store, streams.toolCall(orphan.callId), toolCallEvents);
    const { runId = orphan.callId, correlationId = runId } = first?.metadata ?? {};
    const call = await openToolCall(ports, orphan.callId, { runId, correlationId });
    if (call.state.status === 'started') {
      await recordInterrupted(ports, call, { runId, correlationId }, 'the tool service stopped during the call');
      recovered.push(orphan.callId);
    }
    // Another store's call (or one already settled) is left to its own deadline; the process is gone either way.
    releaseSpawn(ports.inFlightDir, orphan.callId);
  }
  return recovered;
}

/** Before serving: what a tool service on this host left running when it died is stopped and recorded. */
export async function recoverInterrupted(deps: ToolExecutionDeps): Promise<undefined> {
  const recovered = await recoverInterruptedCalls(deps);
  if (recovered.length > 0) deps.logger.warn({ calls: recovered }, 'recorded tool calls interrupted by a stopped tool service');
  return undefined;
}
