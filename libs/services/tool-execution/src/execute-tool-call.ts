import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, EventData, EventMetadata, EventType, StagecraftError, StagecraftEvent, ToolExecuteRequest, ToolResult, streams } from '@stagecraft/contracts';
import type { EventStore, ExpectedRevision } from '@stagecraft/event-store';
import { MessageBus, RequestContext, publishToolProgress } from '@stagecraft/messaging';
import { decideStagePolicy } from '@stagecraft/policy';
import type { Clock, NewId } from '@stagecraft/service-shell';
import { DEFAULT_ALLOWED_COMMANDS, LIMITS, checkProjectRoot, executeTool } from '@stagecraft/tools';
import { ToolExecutionOptions } from './options';
import { ToolCallRecord, assertSameCall, foldToolCall, settledOutcome } from './tool-call-record';

export interface ToolCallPorts {
  store: EventStore;
  bus: MessageBus;
  prefix: string;
  clock: Clock;
  newId: NewId;
  options: ToolExecutionOptions;
}

/** A duplicate waits at most as long as the longest command may run, plus room to record its result. */
const DEFAULT_IN_FLIGHT_WAIT_MS = LIMITS.commandTimeoutMs + LIMITS.commandKillGraceMs + 5_000;
const POLL_MS = 20;

const isConflict = (error: unknown) => (error as { code?: unknown } | null)?.code === 'CONFLICT';

async function readRecord(store: EventStore, callId: string): Promise<ToolCallRecord> {
  return foldToolCall((await store.readStream(streams.toolCall(callId))) as unknown as StagecraftEvent[]);
}

function append<T extends EventType>(ports: ToolCallPorts, request: ToolExecuteRequest, context: RequestContext, type: T, data: EventData<T>, expectedRevision: ExpectedRevision) {
  const metadata: EventMetadata = { runId: request.runId, correlationId: context.correlationId, occurredAt: ports.clock().toISOString() };
  if (context.causationId) metadata.causationId = context.causationId;
  return ports.store.appendToStream(streams.toolCall(request.callId), [{ id: ports.newId(), type, data, metadata }], { expectedRevision });
}

/** Records the refusal (once; a concurrent duplicate's refusal loses the race harmlessly) and throws it. */
async function reject(ports: ToolCallPorts, request: ToolExecuteRequest, context: RequestContext, code: ErrorCode, reason: string): Promise<never> {
  const data = { callId: request.callId, tool: request.tool, stage: request.stage, code, reason };
  await append(ports, request, context, 'ToolCallRejected', data, 'no_stream').catch((error: unknown) => {
    if (!isConflict(error)) throw error;
  });
  throw new StagecraftError(code, reason, [{ path: ['tool'], message: reason }]);
}

/** Another attempt of this call is running (or stopped before recording a result): wait for its outcome. */
async function awaitOutcome(ports: ToolCallPorts, request: ToolExecuteRequest): Promise<ToolResult> {
  const deadline = ports.clock().getTime() + (ports.options.inFlightWaitMs ?? DEFAULT_IN_FLIGHT_WAIT_MS);
  while (ports.clock().getTime() < deadline) {
    const record = await readRecord(ports.store, request.callId);
    assertSameCall(record, request);
    const settled = settledOutcome(record);
    if (settled) return settled;
    await sleep(POLL_MS);
  }
  throw new StagecraftError('CONFLICT', `call '${request.callId}' is still running, or an earlier attempt stopped before recording its result; retry later, or use a new call id`);
}

/**
 * One `tool.execute` request: replay a recorded result, refuse what the stage's policy does not
 * offer, or run the tool once and record its result. The policy is decided here again from the
 * request's own mode, reasoning switch, stage and delegation: the caller's word is not trusted.
 */
export async function executeToolCall(ports: ToolCallPorts, request: ToolExecuteRequest, context: RequestContext): Promise<ToolResult> {
  const record = await readRecord(ports.store, request.callId);
  assertSameCall(record, request);
  const settled = settledOutcome(record);
  if (settled) return settled;
  if (record.requested) return awaitOutcome(ports, request);

  const policy = decideStagePolicy(request);
  if (!policy.tools.includes(request.tool)) {
    const offered = policy.tools.length > 0 ? policy.tools.join(', ') : 'no tools';
    await reject(ports, request, context, 'FORBIDDEN_TOOL', `${request.tool} is not available in the ${request.stage} stage (${request.userMode} mode offers ${offered})`);
  }
  const root = await checkProjectRoot(request.projectRoot, ports.options.allowedRoots).catch((error: unknown) =>
    error instanceof StagecraftError && error.code === 'FORBIDDEN_PATH' ? reject(ports, request, context, 'FORBIDDEN_PATH', error.message) : Promise.reject(error),
  );

  const requested = { callId: request.callId, tool: request.tool, arguments: request.arguments, stage: request.stage };
  try {
    await append(ports, request, context, 'ToolCallRequested', requested, 'no_stream');
  } catch (error) {
    if (isConflict(error)) return awaitOutcome(ports, request);
    throw error;
  }

  let sequence = 0;
  const progress = (message: string) => publishToolProgress(ports.bus, ports.prefix, { callId: request.callId, sequence: sequence++, message });
  progress(`started ${request.tool}`);
  const started = performance.now();
  const outcome = await executeTool(request.tool, request.arguments, { root, allowedCommands: ports.options.allowedCommands ?? DEFAULT_ALLOWED_COMMANDS, progress });
  // Microseconds count: most tools finish in well under a millisecond.
  const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  const completed = { callId: request.callId, tool: request.tool, ...outcome, durationMs };
  await append(ports, request, context, 'ToolCallCompleted', completed, 0n);
  progress(`finished ${outcome.ok ? 'ok' : 'with a failure'} in ${completed.durationMs} ms`);
  return { ...completed, replayed: false };
}
