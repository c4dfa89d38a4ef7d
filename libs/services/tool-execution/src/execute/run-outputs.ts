import { StagecraftError, ToolExecuteRequest, streams, toolCallEvents } from '@stagecraft/contracts';
import { EventReader, readEvents } from '@stagecraft/event-store';
import { TOOL_CALL_ID } from '@stagecraft/tools';

/** The output the tool service recorded for `callId`, when that call is one of `runId`'s and has finished; null otherwise. */
export async function outputOfRunCall(reader: EventReader, runId: string, callId: string): Promise<string | null> {
  const events = await readEvents(reader, streams.toolCall(callId), toolCallEvents);
  if (events.length === 0 || events.some((e) => e.metadata.runId !== runId)) return null;
  const finished = events.find((e) => e.type === 'ToolExecutionFinished');
  return finished?.type === 'ToolExecutionFinished' ? finished.data.output : null;
}

/**
 * `read_tool_output` reads only its own run's calls: any other call id (another run's, an unknown
 * or unfinished one) is refused alike, before anything is recorded, so the answer tells nothing of other runs.
 */
export async function refuseOtherRunsOutput(reader: EventReader, request: ToolExecuteRequest): Promise<void> {
  if (request.tool !== 'read_tool_output') return;
  const { callId } = request.arguments;
  // Arguments that are not even a call id are the tool's own schema failure.
  if (typeof callId !== 'string' || !TOOL_CALL_ID.test(callId)) return;
  if ((await outputOfRunCall(reader, request.runId, callId)) !== null) return;
  throw new StagecraftError('VALIDATION', `read_tool_output: run ${request.runId} has no finished tool call ${callId}`, [
    { path: ['arguments', 'callId'], message: 'not a finished tool call of this run' },
  ]);
}
