import { setTimeout as sleep } from 'node:timers/promises';
import { StagecraftError, ToolExecuteRequest, ToolResult, streams, toolCallEventSchemas, toolCallEvents } from '@stagecraft/contracts';
import { DecidedStream, StreamPorts } from '@stagecraft/event-store';
import { LIMITS } from '@stagecraft/tools';
import {
  ToolCallContext,
  ToolCallDecided,
  ToolCallInput,
  ToolCallState,
  assertSameCall,
  settledOutcome,
  toolCallDecider,
} from './tool-call.decider';

/** One `toolcall-<callId>` stream, read and folded, deciding and appending at the revision it read. */
export type ToolCall = DecidedStream<ToolCallState, ToolCallInput, ToolCallDecided, ToolCallContext, typeof toolCallEventSchemas>;

/** What links a call's events to its run and request, in their metadata. */
export interface CallLink {
  runId: string;
  correlationId: string;
  causationId?: string;
}

export const linkOf = (request: ToolExecuteRequest, context: { correlationId: string; causationId?: string }): CallLink => ({
  runId: request.runId,
  correlationId: context.correlationId,
  causationId: context.causationId,
});

export function openToolCall(ports: StreamPorts, callId: string, link: CallLink): Promise<ToolCall> {
  return DecidedStream.open(ports, toolCallDecider, toolCallEvents, streams.toolCall(callId), {
    what: `tool call ${callId}`,
    metadata: (_event, _index, occurredAt) => ({
      runId: link.runId,
      correlationId: link.correlationId,
      occurredAt,
      ...(link.causationId ? { causationId: link.causationId } : {}),
    }),
  });
}

export const isConflict = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'CONFLICT';

const callIdOf = (call: ToolCall): string => call.stream.slice(streams.toolCall('').length);

/** Decides how a started call ends and appends it; another writer in between settled it first, and its outcome is the one everyone sees. */
export async function settle(ports: StreamPorts, call: ToolCall, link: CallLink, input: ToolCallInput): Promise<ToolResult> {
  try {
    const outcome = await call.handle(input, { now: ports.clock() });
    const [finished] = 'events' in outcome ? outcome.events : [];
    if (finished?.type !== 'ToolExecutionFinished')
      throw new StagecraftError('INTERNAL', `${input.type} did not finish tool call ${callIdOf(call)}`);
    return { ...finished.data, replayed: false };
  } catch (error) {
    const recorded = isConflict(error) ? settledOutcome((await openToolCall(ports, callIdOf(call), link)).state) : null;
    if (recorded) return recorded;
    throw error;
  }
}

/**
 * Settles a call whose tool service stopped while running it (or whose run was cancelled). Its effect
 * is unknown, so it is not run again: the model is told so and decides. A result recorded meanwhile wins.
 */
export const recordInterrupted = (ports: StreamPorts, call: ToolCall, link: CallLink, why: string): Promise<ToolResult> =>
  settle(ports, call, link, { type: 'InterruptCall', why });

/** A duplicate of a call recorded before calls had deadlines waits at most this long. */
const DEFAULT_IN_FLIGHT_WAIT_MS = LIMITS.commandTimeoutMs + LIMITS.commandKillGraceMs + 5_000;
const POLL_MS = 20;

/** Another attempt of this call is running, or stopped before recording a result: wait for its outcome, or its deadline. */
export async function awaitOutcome(
  ports: StreamPorts & { options: { inFlightWaitMs?: number } },
  request: ToolExecuteRequest,
  link: CallLink,
): Promise<ToolResult> {
  const waitUntil = ports.clock().getTime() + (ports.options.inFlightWaitMs ?? DEFAULT_IN_FLIGHT_WAIT_MS);
  for (;;) {
    const call = await openToolCall(ports, request.callId, link);
    assertSameCall(call.state, request);
    const settled = settledOutcome(call.state);
    if (settled) return settled;
    const deadline = call.state.status === 'started' && call.state.started.deadline ? Date.parse(call.state.started.deadline) : undefined;
    const now = ports.clock().getTime();
    if (deadline !== undefined && now > deadline)
      return recordInterrupted(ports, call, link, 'its tool service stopped before recording a result');
    if (deadline === undefined && now > waitUntil) {
      throw new StagecraftError(
        'CONFLICT',
        `call '${request.callId}' is still running, or an earlier attempt stopped before recording its result; retry later, or use a new call id`,
      );
    }
    await sleep(POLL_MS);
  }
}
