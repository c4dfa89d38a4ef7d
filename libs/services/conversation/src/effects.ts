import { ChatMessage, ModelCallMeta, ReplyOf, RequestOf, StagecraftError, compactMessageHashes, toErrorReply } from '@stagecraft/contracts';
import { hashPrompt, stageModelOf, storedHashesOf } from '@stagecraft/model-gateway';
import {
  ModelCallPlan,
  ModelRequestRecord,
  Need,
  PendingEvent,
  RunInput,
  RunState,
  RunStep,
  Running,
  modelMessages,
  nextStep,
  requestOverWindow,
  requestViolations,
  runDecider,
} from '@stagecraft/run';
import { outcomeOf } from '@stagecraft/decider';
import { RESTART_WINDOW_MS, requestRetrying } from '@stagecraft/messaging';
import { toolCallBudgetMs, toolSpecs } from '@stagecraft/tools';
import { documentFormat, documentReplyText } from './agent-document';
import { assemblePrompt } from './assemble-prompt';
import { DriverPorts } from './driver-ports';
import { RunKnowledge } from './knowledge';
import { promptBodiesOf } from './prompt-bodies';
import { RunLog } from './run-log';
import { RunTrace } from './run-trace';
import { withProjectMap } from './project-map';
import { withRecalledMemories } from './recalled-memories';
import { publishModelStream } from './model-stream';
import { publishToolCancel } from './cancel-notices';

/** Decisions in a row that may ask for something before the decider has all it needs. */
const MAX_NEEDS_PER_DECISION = 8;

/**
 * The effects shell of a run: ask the decider for the next step, do its I/O, tell the decider what
 * happened, append what it decided; again until the run ends. Every decision is the library's; this
 * file only talks to other services. A restarted process picks up where the log stopped.
 */
export async function driveRun(
  ports: DriverPorts,
  log: RunLog,
  knowledge = new RunKnowledge(ports),
  cancelled: AbortSignal = new AbortController().signal,
): Promise<void> {
  const trace = RunTrace.start(log.runId, log.state);
  try {
    await trace.drive(() => driveSteps(ports, log, knowledge, trace, cancelled));
  } catch (error) {
    trace.end(log.state, error);
    throw error;
  }
  trace.end(log.state);
}

/**
 * `cancelled` fires once `RunCancelled` is in the log (another writer appended it): the step in flight is
 * cut short (the model call aborted, the tool call killed), its outcome recorded as a late answer, and
 * the run, read again, is finished.
 */
async function driveSteps(
  ports: DriverPorts,
  log: RunLog,
  knowledge: RunKnowledge,
  trace: RunTrace,
  cancelled: AbortSignal,
): Promise<void> {
  for (;;) {
    if (cancelled.aborted) await log.reload();
    const step = nextStep(log.state);
    // A run that waits for a person stays running; an answer (`approval.answer`) drives it on.
    if (step.kind === 'await_approval') return;
    if (step.kind === 'finished') return closeCallsNeverMade(ports, log, knowledge);
    trace.enter(log.state);
    let observed: Observed;
    try {
      observed = await trace.inStage(() => perform(ports, log.state, step, cancelled));
    } catch (error) {
      const fault = toErrorReply(error);
      ports.logger.error({ runId: log.runId, step: step.kind, code: fault.code, err: fault.message }, 'run failed');
      observed = { input: { type: 'RunStopped', fault, at: now(ports) } };
    }
    await trace.inStage(() => appendObserved(ports, log, observed, knowledge));
  }
}

/** A cancelled run's driver has stopped: the calls still open were never made, and are closed as such. */
async function closeCallsNeverMade(ports: DriverPorts, log: RunLog, knowledge: RunKnowledge): Promise<void> {
  const { state } = log;
  if (state.status !== 'cancelled' || state.current?.step.kind !== 'tools') return;
  const input: RunInput = { type: 'RunStopped', fault: { code: 'CONFLICT', message: 'the run was cancelled' }, at: now(ports) };
  await appendObserved(ports, log, { input }, knowledge);
}

/** A commit refused because the run changed meanwhile is decided again only when the change was its cancellation. */
async function appendObserved(ports: DriverPorts, log: RunLog, observed: Observed, knowledge: RunKnowledge): Promise<void> {
  try {
    await decideAndAppend(ports, log, observed.input, knowledge, observed.causationId);
  } catch (error) {
    if (toErrorReply(error).code !== 'CONFLICT') throw error;
    await log.reload();
    if (log.state.status !== 'cancelled') throw error;
    await decideAndAppend(ports, log, observed.input, knowledge, observed.causationId);
  }
}

/** Decides on one input, fetching what the decision asks for, and appends the result as one commit. */
export async function decideAndAppend(
  ports: DriverPorts,
  log: RunLog,
  input: RunInput,
  knowledge: RunKnowledge,
  causationId?: string,
): Promise<void> {
  for (let asked = 0; asked <= MAX_NEEDS_PER_DECISION; asked++) {
    const context = { limits: ports.limits, knowledge: knowledge.forDecision(asked === 0) };
    const decision = outcomeOf<PendingEvent, Need>(() => runDecider.decide(input, log.state, context));
    if ('events' in decision) return log.append(decision.events, causationId);
    await knowledge.fetch(decision.needs);
  }
  throw new StagecraftError('INTERNAL', `run ${log.runId}: a decision still needed more after ${MAX_NEEDS_PER_DECISION} answers`);
}

const now = (ports: DriverPorts) => ports.clock().toISOString();

interface Observed {
  input: RunInput;
  causationId?: string;
}

async function perform(
  ports: DriverPorts,
  state: RunState,
  step: Exclude<RunStep, { kind: 'finished' | 'await_approval' }>,
  cancelled: AbortSignal,
): Promise<Observed> {
  switch (step.kind) {
    case 'call_model':
      return { input: await callModel(ports, state, step.plan, cancelled), causationId: step.plan.requestId };
    case 'run_tool':
      return { input: await runTool(ports, step.request, cancelled), causationId: step.request.callId };
    case 'review':
      return { input: await review(ports, step.request, cancelled) };
    case 'resume':
      return { input: { type: 'RunResumed', at: now(ports) } };
    default: {
      const unreachable: never = step;
      throw new StagecraftError('INTERNAL', `unknown step ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * One model step: what was asked (prompt bodies by hash) and what came back, decided on together.
 * The bodies the request names are stored while the model answers, and before the request is: a crash
 * between the two leaves a body nothing names, never a request without its bodies. A crash during the
 * call leaves no request, and the restarted run asks again.
 */
async function callModel(ports: DriverPorts, state: RunState, plan: ModelCallPlan, cancelled: AbortSignal): Promise<RunInput> {
  if (state.status !== 'running') throw new StagecraftError('INTERNAL', 'only a running run calls the model');
  const { runId, userInput, projectRoot } = state.start;
  const recalled = await withRecalledMemories(ports, plan.assemble, { runId, userInput, projectRoot, modelRequests: state.modelRequests });
  const assemble = await withProjectMap(ports, recalled, { runId, projectRoot });
  const assembled = await assemblePrompt(ports, assemble, runId);
  const messages = modelMessages(plan, assembled, ports.stageMessageRole);
  const tools = toolSpecs(plan.toolNames);
  const recorded = plan.record ? recordOf(ports, plan, state, messages, tools) : undefined;
  const metadata = { correlationId: state.start.runId, causationId: plan.requestId, occurredAt: now(ports) };
  // Settled at once, so a failed write waits for the answer without being reported as unhandled.
  const stored = recorded
    ? promptBodiesOf(ports.store)
        .storeAll(recorded.bodies, metadata)
        .then(
          () => null,
          (error: unknown) => error,
        )
    : null;
  const request = recorded?.request;
  const violations = [...requestViolations(plan, assembled.promptIds, messages), ...requestOverWindow(state.start.limits, messages, tools)];
  const input: RunInput =
    violations.length > 0
      ? { type: 'ModelCallFailed', request, fault: { code: 'INVARIANT_VIOLATION', message: violations.join('; ') }, at: now(ports) }
      : await askModel(ports, state, plan, messages, tools, request, cancelled);
  const failure = await stored;
  if (failure) throw failure;
  return input;
}

async function askModel(
  ports: DriverPorts,
  { start }: Running,
  plan: ModelCallPlan,
  messages: ChatMessage[],
  tools: ReturnType<typeof toolSpecs>,
  request: ModelRequestRecord | undefined,
  cancelled: AbortSignal,
): Promise<RunInput> {
  const meta: ModelCallMeta = {
    requestId: plan.requestId,
    runId: start.runId,
    conversationId: start.conversationId,
    stage: plan.policy.stage,
    userMode: start.userMode,
    reasoningEnabled: start.reasoningEnabled,
  };
  try {
    const onDelta = publishModelStream(ports.bus, ports.prefix, meta);
    const structuredOutput = documentFormat(start.agent, meta.stage, start.reasoningEnabled);
    const response = await ports.gateway.complete(meta, messages, tools, {
      onDelta,
      signal: cancelled,
      toolChoice: plan.toolChoice,
      ...(structuredOutput && { structuredOutput }),
    });
    const { toolCalls, usage, latencyMs, finishReason, askedModel, structured } = response;
    // Recorded as read: a replay decides from this text, whatever the wire carried.
    const content = documentReplyText(response);
    return {
      type: 'ModelAnswered',
      // The gateway says which model it asked; the record's guess stands when it does not.
      request: request && askedModel ? { ...request, model: askedModel } : request,
      response: { requestId: plan.requestId, content, toolCalls, usage, latencyMs, finishReason, ...(structured && { structured }) },
      at: now(ports),
    };
  } catch (error) {
    return { type: 'ModelCallFailed', request, fault: toErrorReply(error), at: now(ports) };
  }
}

/**
 * The record of a request: every message by hash, as ranges of the run's previous request where it
 * repeats it, and the bodies to store. Messages the log holds already (the run's own, its conversation's
 * earlier turns) are not stored again: a reader rebuilds their bodies from those events.
 */
function recordOf(
  ports: DriverPorts,
  plan: ModelCallPlan,
  state: Running,
  messages: ChatMessage[],
  tools: ReturnType<typeof toolSpecs>,
): { request: ModelRequestRecord; bodies: Record<string, string> } {
  const held = storedHashesOf([...state.prior.messages, ...state.history].map((m) => m.message));
  const hashed = hashPrompt(messages, tools, new Set(held));
  return {
    request: {
      requestId: plan.requestId,
      stage: plan.policy.stage,
      model: stageModelOf(ports.gateway, plan.policy.stage),
      toolNames: [...plan.toolNames],
      ...(plan.toolChoice ? { toolChoice: plan.toolChoice } : {}),
      messageCount: messages.length,
      tokenEstimate: hashed.tokenEstimate,
      promptHash: hashed.promptHash,
      messageHashes: compactMessageHashes(hashed.messageHashes, state.requestHashes),
    },
    bodies: hashed.newBodies,
  };
}

/**
 * Asks the tool service to run a call, again with the same call id while it is unreachable or silent:
 * the call id makes the retry safe (a call that ran is replayed, one that was cut off is recorded as
 * interrupted, never run twice; a retry of a call still running waits on it), so a restarting tool
 * service does not fail the run.
 */
async function runTool(ports: DriverPorts, request: RequestOf<'tool.execute'>, cancelled: AbortSignal): Promise<RunInput> {
  // The call goes on being asked for: its reply, once the tool service has killed it, says it was interrupted.
  const kill = () => publishToolCancel(ports.bus, ports.prefix, request.callId, 'the run was cancelled');
  cancelled.addEventListener('abort', kill, { once: true });
  try {
    const result = await requestToolCall(ports, request);
    return { type: 'ToolAnswered', callId: request.callId, result, at: now(ports) };
  } catch (error) {
    return { type: 'ToolCallFailed', callId: request.callId, fault: toErrorReply(error), at: now(ports) };
  } finally {
    cancelled.removeEventListener('abort', kill);
  }
}

function requestToolCall(ports: DriverPorts, request: RequestOf<'tool.execute'>): Promise<ReplyOf<'tool.execute'>> {
  const clock = () => ports.clock().getTime();
  return requestRetrying(ports.requester, 'tool.execute', request, {
    // On top of the call's own budget: room for a restart of the tool service.
    giveUpAt: clock() + toolCallBudgetMs(request.tool, request.arguments) + RESTART_WINDOW_MS,
    now: clock,
    causationId: request.callId,
    onRetry: (attempt, code) => {
      if (code === 'UNAVAILABLE')
        ports.logger.warn(
          { runId: request.runId, callId: request.callId, attempt },
          'no tool service answers; asking again with the same call id',
        );
    },
  });
}

async function review(ports: DriverPorts, request: RequestOf<'qa.review'>, cancelled: AbortSignal): Promise<RunInput> {
  try {
    // A cancelled run records no review: the reviewer's answer is not waited for.
    const { report, modelCalls } = await untilCancelled(ports.requester.request('qa.review', request), cancelled);
    return { type: 'ReviewReturned', report, modelCalls, at: now(ports) };
  } catch (error) {
    return { type: 'ReviewFailed', fault: toErrorReply(error), at: now(ports) };
  }
}

/** `work`, or a rejection as soon as the run is cancelled (the work goes on, unheeded). */
function untilCancelled<T>(work: Promise<T>, cancelled: AbortSignal): Promise<T> {
  if (cancelled.aborted) return Promise.reject(new StagecraftError('CONFLICT', 'the run was cancelled'));
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new StagecraftError('CONFLICT', 'the run was cancelled'));
    cancelled.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => cancelled.removeEventListener('abort', stop));
  });
}
