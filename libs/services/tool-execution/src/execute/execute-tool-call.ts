import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { StagecraftError, ToolExecuteRequest, ToolResult, memoryScopeOf } from '@stagecraft/contracts';
import { outcomeOf } from '@stagecraft/decider';
import { RequestContext, publishToolProgress } from '@stagecraft/messaging';
import { DEFAULT_ALLOWED_COMMANDS, checkProjectRoot, executeTool, withDiff } from '@stagecraft/tools';
import type { MemoryPort } from '@stagecraft/tools';
import { changedPaths, indexFor, updateCodebaseIndex } from '../codebase-index/codebase-index';
import type { ToolCallPorts } from '../dependencies';
import { scrubByShape } from '../options';
import { recordSpawn, releaseSpawn } from '../running/in-flight';
import { editorFiles } from './editor-files';
import { outputOfRunCall, refuseOtherRunsOutput } from './run-outputs';
import {
  PROJECT_ROOT,
  ProjectRootVerdict,
  ToolCallDecided,
  assertSameCall,
  refusalOf,
  settledOutcome,
  toolCallDecider,
} from '../tool-call/tool-call.decider';
import {
  CallLink,
  ToolCall,
  awaitOutcome,
  isConflict,
  linkOf,
  openToolCall,
  recordInterrupted,
  settle,
} from '../tool-call/tool-call-stream';

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

const indexAppend = (ports: ToolCallPorts, link: CallLink, callId: string) => ({
  store: ports.store,
  newId: ports.newId,
  metadata: { runId: link.runId, correlationId: link.correlationId, causationId: callId, occurredAt: ports.clock().toISOString() },
});

/**
 * Decides the start: the policy first, then (when it allows the tool) the project root, which only
 * the file system can answer. A refusal is recorded once (a concurrent duplicate's refusal loses the
 * race harmlessly) and thrown; a start lost to a concurrent duplicate is `null`: wait for that one.
 */
async function startCall(ports: ToolCallPorts, call: ToolCall, request: ToolExecuteRequest): Promise<string | null> {
  const input = { type: 'StartCall', request } as const;
  const now = ports.clock();
  let root: string | undefined;
  let outcome = outcomeOf<ToolCallDecided, typeof PROJECT_ROOT>(() => toolCallDecider.decide(input, call.state, { now }));
  if ('needs' in outcome) {
    const projectRoot = await checkProjectRoot(request.projectRoot, ports.options.allowedRoots).then(
      (checked): ProjectRootVerdict => ((root = checked), { allowed: true }),
      (error: unknown): ProjectRootVerdict => {
        if (error instanceof StagecraftError && error.code === 'FORBIDDEN_PATH') return { allowed: false, reason: error.message };
        throw error;
      },
    );
    outcome = outcomeOf(() => toolCallDecider.decide(input, call.state, { now: ports.clock(), projectRoot }));
  }
  if (!('events' in outcome)) throw new StagecraftError('INTERNAL', `tool call ${request.callId} still needs ${String(outcome.needs)}`);
  const [decided] = outcome.events;
  try {
    await call.append(outcome.events);
  } catch (error) {
    if (!isConflict(error)) throw error;
    if (decided.type === 'ToolExecutionStarted') return null;
  }
  if (decided.type === 'ToolExecutionRefused') throw refusalOf(decided.data);
  return root!;
}

/**
 * One `tool.execute` request: replay a recorded result, refuse what the stage's policy does not
 * offer, or run the tool once and record its result.
 */
export async function executeToolCall(ports: ToolCallPorts, request: ToolExecuteRequest, context: RequestContext): Promise<ToolResult> {
  await refuseOtherRunsOutput(ports.store, request);
  const link = linkOf(request, context);
  const call = await openToolCall(ports, request.callId, link);
  assertSameCall(call.state, request);
  const settled = settledOutcome(call.state);
  if (settled) return settled;
  if (call.state.status === 'started') return awaitOutcome(ports, request, link);
  const root = await startCall(ports, call, request);
  if (root === null) return awaitOutcome(ports, request, link);
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
      recordSpawn(ports.inFlightDir, request.callId, pid, ports.pid);
      ports.running?.spawned(request.callId);
    },
    index: () => indexFor(indexAppend(ports, link, request.callId), root),
    memory: request.tool.startsWith('memory_') ? memoryPortFor(ports, request, context) : undefined,
    embed: ports.embedder && ((texts) => ports.embedder!.embed(texts)),
    toolOutput: (callId) => outputOfRunCall(ports.store, request.runId, callId),
    files: request.editor && editorFiles(ports.bus, ports.prefix, request.editor),
  }).finally(() => {
    releaseSpawn(ports.inFlightDir, request.callId);
    cutOff = ports.running?.end(request.callId) ?? false;
  });
  // Killed because its run was cancelled: what it did before is unknown, as for a call its service dropped.
  if (cutOff) return recordInterrupted(ports, call, link, 'its run was cancelled');
  // Microseconds count: most tools finish in well under a millisecond.
  const durationMs = Math.round((performance.now() - startedAt) * 1000) / 1000;
  // Secrets never reach the log, the live feed or the next model request.
  const scrub = ports.options.scrub ?? scrubByShape;
  // A diff's context lines are the file's own text, secrets included: they are scrubbed like any output.
  const changes = outcome.changes?.map((change) => withDiff(change, scrub(change.diff)));
  const scrubbed = { ...outcome, output: scrub(outcome.output), ...(changes ? { changes } : {}) };
  // Declared interrupted while it ran (past its deadline): the recorded outcome is the one everyone sees.
  const finished = await settle(ports, call, link, { type: 'FinishCall', outcome: scrubbed, durationMs });
  if (finished.replayed) return finished;
  progress(`finished ${outcome.ok ? 'ok' : 'with a failure'} in ${finished.durationMs} ms`);
  // The codebase index follows every successful edit, one file at a time (docs/decisions/0022).
  const edited = outcome.ok ? changedPaths(root, request.tool, request.arguments) : [];
  // The recorded outcome stands whatever happens here: a failed re-index leaves the old entries, which
  // the next edit of the file or `stagecraft index` replaces.
  if (edited.length > 0) await updateCodebaseIndex(indexAppend(ports, link, request.callId), root, edited).catch(() => null);
  return finished;
}
