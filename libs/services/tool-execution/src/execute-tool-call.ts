import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ErrorCode,
  EventData,
  EventMetadata,
  StagecraftError,
  ToolCallEvent,
  ToolExecuteRequest,
  ToolResult,
  streams,
  toolCallEvents,
} from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import type { EventStore, ExpectedRevision } from '@stagecraft/event-store';
import { memoryScopeOf } from '@stagecraft/contracts';
import { MessageBus, RequestContext, Requester, publishToolProgress } from '@stagecraft/messaging';
import { decideStagePolicy } from '@stagecraft/policy';
import type { Clock, NewId } from '@stagecraft/service-shell';
import { DEFAULT_ALLOWED_COMMANDS, LIMITS, checkProjectRoot, executeTool, failed, toolCallBudgetMs } from '@stagecraft/tools';
import type { MemoryPort } from '@stagecraft/tools';
import type { Embedder } from '@stagecraft/model-gateway';
import { changedPaths, indexFor, updateCodebaseIndex } from './codebase-index';
import { reapOrphans, recordSpawn, releaseSpawn } from './in-flight';
import { RunningCalls } from './running-calls';
import { scrubByShape, ToolExecutionOptions } from './options';
import { ToolCallRecord, assertSameCall, callBinding, foldToolCall, settledOutcome } from './tool-call-record';

export interface ToolCallPorts {
  store: EventStore;
  bus: MessageBus;
  prefix: string;
  clock: Clock;
  newId: NewId;
  options: ToolExecutionOptions;
  /** Where this host notes the processes of calls in flight (the option, or the default under the temp directory). */
  inFlightDir: string;
  /** Answers the memory tools through the memory service; without it they fail with guidance. */
  requester?: Requester;
  /** `STAGECRAFT_EMBEDDING_MODEL`'s embedder: `search_index` also ranks by meaning when there is one. */
  embedder?: Embedder;
  /** The calls running here, which a cancelled run's driver may ask to kill (`tool.cancel`); without it none can be. */
  running?: RunningCalls;
}

/**
 * The memory service in the project's scope, for one call: a retain gets an id derived from the call
 * id (a retried call retains once) and the call's run as its source.
 */
function memoryPortFor(ports: ToolCallPorts, request: ToolExecuteRequest, context: RequestContext): MemoryPort | undefined {
  const requester = ports.requester;
  if (!requester) return undefined;
  const { projectRoot } = request;
  const linked = { correlationId: context.correlationId, causationId: request.callId };
  const memoryId = `m-${createHash('sha256').update(`tool-call:${request.callId}`).digest('hex').slice(0, 24)}`;
  return {
    scope: memoryScopeOf(projectRoot),
    recall: (r) => requester.request('memory.recall', { projectRoot, ...r }, linked),
    retain: (r) => requester.request('memory.retain', { projectRoot, ...r, memoryId, source: { runId: request.runId } }, linked),
    reflect: (r) => requester.request('memory.reflect', { projectRoot, ...r }, linked),
  };
}

/** A duplicate of a call recorded before calls had deadlines waits at most this long. */
const DEFAULT_IN_FLIGHT_WAIT_MS = LIMITS.commandTimeoutMs + LIMITS.commandKillGraceMs + 5_000;
const POLL_MS = 20;

const isConflict = (error: unknown) => (error as { code?: unknown } | null)?.code === 'CONFLICT';

/** What identifies a call in its stream's metadata, for appends made without the original request. */
interface CallRef {
  callId: string;
  tool: ToolExecuteRequest['tool'];
  runId: string;
  correlationId: string;
  causationId?: string;
}

const refOf = (request: ToolExecuteRequest, context: RequestContext): CallRef => ({
  callId: request.callId,
  tool: request.tool,
  runId: request.runId,
  correlationId: context.correlationId,
  causationId: context.causationId,
});

const readCall = (store: EventStore, callId: string) => readEvents(store, streams.toolCall(callId), toolCallEvents);

async function readRecord(store: EventStore, callId: string): Promise<ToolCallRecord> {
  return foldToolCall(await readCall(store, callId));
}

function append<T extends ToolCallEvent['type']>(
  ports: ToolCallPorts,
  ref: CallRef,
  type: T,
  data: EventData<T>,
  expectedRevision: ExpectedRevision,
) {
  const metadata: EventMetadata = { runId: ref.runId, correlationId: ref.correlationId, occurredAt: ports.clock().toISOString() };
  if (ref.causationId) metadata.causationId = ref.causationId;
  return ports.store.appendToStream(streams.toolCall(ref.callId), [{ id: ports.newId(), type, data, metadata }], { expectedRevision });
}

const indexAppend = (ports: ToolCallPorts, ref: CallRef) => ({
  store: ports.store,
  newId: ports.newId,
  metadata: { runId: ref.runId, correlationId: ref.correlationId, causationId: ref.callId, occurredAt: ports.clock().toISOString() },
});

/** Records the refusal (once; a concurrent duplicate's refusal loses the race harmlessly) and throws it. */
async function reject(
  ports: ToolCallPorts,
  request: ToolExecuteRequest,
  context: RequestContext,
  code: ErrorCode,
  reason: string,
): Promise<never> {
  const data = { callId: request.callId, tool: request.tool, stage: request.stage, code, reason, binding: callBinding(request) };
  await append(ports, refOf(request, context), 'ToolExecutionRefused', data, 'no_stream').catch((error: unknown) => {
    if (!isConflict(error)) throw error;
  });
  throw new StagecraftError(code, reason, [{ path: ['tool'], message: reason }]);
}

/**
 * Settles a call whose tool service stopped while running it. Its effect is unknown, so it is not run
 * again: the model is told so and decides. A result recorded meanwhile wins, and is returned instead.
 */
export async function recordInterrupted(ports: ToolCallPorts, ref: CallRef, why: string): Promise<ToolResult> {
  const output = failed({
    kind: 'INTERRUPTED',
    problem: `the ${ref.tool} call was interrupted: ${why}; whether it took effect is unknown`,
    retry: 'check what the call would have changed (read the files, or list the directory) before you make it again with a new call',
  }).output;
  const data = { callId: ref.callId, tool: ref.tool, ok: false, output, truncated: false, durationMs: 0, interrupted: true };
  try {
    await append(ports, ref, 'ToolExecutionFinished', data, 0n);
    return { ...data, replayed: false };
  } catch (error) {
    if (!isConflict(error)) throw error;
    const settled = settledOutcome(await readRecord(ports.store, ref.callId));
    if (settled) return settled;
    throw error;
  }
}

/** Another attempt of this call is running, or stopped before recording a result: wait for its outcome, or its deadline. */
async function awaitOutcome(ports: ToolCallPorts, request: ToolExecuteRequest, context: RequestContext): Promise<ToolResult> {
  const waitUntil = ports.clock().getTime() + (ports.options.inFlightWaitMs ?? DEFAULT_IN_FLIGHT_WAIT_MS);
  for (;;) {
    const record = await readRecord(ports.store, request.callId);
    assertSameCall(record, request);
    const settled = settledOutcome(record);
    if (settled) return settled;
    const deadline = record.started?.deadline ? Date.parse(record.started.deadline) : undefined;
    const now = ports.clock().getTime();
    if (deadline !== undefined && now > deadline)
      return recordInterrupted(ports, refOf(request, context), 'its tool service stopped before recording a result');
    if (deadline === undefined && now > waitUntil) {
      throw new StagecraftError(
        'CONFLICT',
        `call '${request.callId}' is still running, or an earlier attempt stopped before recording its result; retry later, or use a new call id`,
      );
    }
    await sleep(POLL_MS);
  }
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
  if (record.started) return awaitOutcome(ports, request, context);
  const policy = decideStagePolicy(request);
  if (!policy.tools.includes(request.tool)) {
    const offered = policy.tools.length > 0 ? policy.tools.join(', ') : 'no tools';
    await reject(
      ports,
      request,
      context,
      'FORBIDDEN_TOOL',
      `${request.tool} is not available in the ${request.stage} stage (${request.userMode} mode offers ${offered})`,
    );
  }
  const root = await checkProjectRoot(request.projectRoot, ports.options.allowedRoots).catch((error: unknown) =>
    error instanceof StagecraftError && error.code === 'FORBIDDEN_PATH'
      ? reject(ports, request, context, 'FORBIDDEN_PATH', error.message)
      : Promise.reject(error),
  );
  const deadline = new Date(ports.clock().getTime() + toolCallBudgetMs(request.tool, request.arguments)).toISOString();
  const started = {
    callId: request.callId,
    tool: request.tool,
    arguments: request.arguments,
    stage: request.stage,
    binding: callBinding(request),
    deadline,
  };
  const ref = refOf(request, context);
  try {
    await append(ports, ref, 'ToolExecutionStarted', started, 'no_stream');
  } catch (error) {
    if (isConflict(error)) return awaitOutcome(ports, request, context);
    throw error;
  }
  let sequence = 0;
  const progress = (message: string) =>
    publishToolProgress(ports.bus, ports.prefix, { callId: request.callId, sequence: sequence++, message });
  progress(`started ${request.tool}`);
  const startedAt = performance.now();
  ports.running?.begin(request.callId);
  let cutOff = false;
  const outcome = await executeTool(request.tool, request.arguments, {
    root,
    allowedCommands: ports.options.allowedCommands ?? DEFAULT_ALLOWED_COMMANDS,
    sandbox: ports.options.sandbox,
    progress,
    onSpawn: (pid) => {
      recordSpawn(ports.inFlightDir, request.callId, pid);
      ports.running?.spawned(request.callId);
    },
    index: () => indexFor(indexAppend(ports, ref), root),
    memory: request.tool.startsWith('memory_') ? memoryPortFor(ports, request, context) : undefined,
    embed: ports.embedder && ((texts) => ports.embedder!.embed(texts)),
  }).finally(() => {
    releaseSpawn(ports.inFlightDir, request.callId);
    cutOff = ports.running?.end(request.callId) ?? false;
  });
  // Killed because its run was cancelled: what it did before is unknown, as for a call its service dropped.
  if (cutOff) return recordInterrupted(ports, ref, 'its run was cancelled');
  // Microseconds count: most tools finish in well under a millisecond.
  const durationMs = Math.round((performance.now() - startedAt) * 1000) / 1000;
  // Secrets never reach the log, the live feed or the next model request.
  const scrubbed = { ...outcome, output: (ports.options.scrub ?? scrubByShape)(outcome.output) };
  const finished = { callId: request.callId, tool: request.tool, ...scrubbed, durationMs };
  try {
    await append(ports, ref, 'ToolExecutionFinished', finished, 0n);
  } catch (error) {
    // Declared interrupted while it ran (past its deadline): the recorded outcome is the one everyone sees.
    const recorded = isConflict(error) ? settledOutcome(await readRecord(ports.store, request.callId)) : null;
    if (recorded) return recorded;
    throw error;
  }
  progress(`finished ${outcome.ok ? 'ok' : 'with a failure'} in ${finished.durationMs} ms`);
  // The codebase index follows every successful edit, one file at a time (docs/decisions/0022).
  const edited = outcome.ok ? changedPaths(root, request.tool, request.arguments) : [];
  // The recorded outcome stands whatever happens here: a failed re-index leaves the old entries, which
  // the next edit of the file or `stagecraft index` replaces.
  if (edited.length > 0) await updateCodebaseIndex(indexAppend(ports, ref), root, edited).catch(() => null);
  return { ...finished, replayed: false };
}

/** At start-up: calls this host's dead tool service left running are stopped and recorded as interrupted. */
export async function recoverInterruptedCalls(ports: ToolCallPorts): Promise<string[]> {
  const recovered: string[] = [];
  for (const orphan of reapOrphans(ports.inFlightDir)) {
    const events = await readCall(ports.store, orphan.callId);
    const record = foldToolCall(events);
    if (record.started && !settledOutcome(record)) {
      const { runId = orphan.callId, correlationId = runId } = events[0].metadata;
      await recordInterrupted(
        ports,
        { callId: orphan.callId, tool: record.started.tool, runId, correlationId },
        'the tool service stopped during the call',
      );
      recovered.push(orphan.callId);
    }
    // Another store's call (or one already settled) is left to its own deadline; the process is gone either way.
    releaseSpawn(ports.inFlightDir, orphan.callId);
  }
  return recovered;
}
