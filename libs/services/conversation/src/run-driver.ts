import { setTimeout as sleep } from 'node:timers/promises';
import { ChatMessage, ModelCallMeta, ReplyOf, RequestOf, Stage, StagePolicy, StagecraftError, StagecraftEvent, ToolSpec, toErrorReply } from '@stagecraft/contracts';
import { formatContextId } from '@stagecraft/context';
import { hashPrompt, storedHashesOf } from '@stagecraft/model-gateway';
import { renderOutcome } from '@stagecraft/reasoning';
import { OpenToolCall, PendingEvent, RunState, RunStep, evolveRun, interpretResponse, nextStep, pending, requestViolations } from '@stagecraft/run';
import { toolCallBudgetMs, toolSpecs } from '@stagecraft/tools';
import { DriverPorts } from './driver-ports';
import { RunLog } from './run-log';

const MAIN_AGENT = 'main';
/** Folding ahead of an append only needs types and data; the metadata is added when the events are stored. */
const PREVIEW_METADATA = { correlationId: 'preview', occurredAt: '1970-01-01T00:00:00.000Z' };

interface Batch {
  events: PendingEvent[];
  causationId?: string;
}

/**
 * Runs one run to its end: ask `nextStep`, do that one thing, append what happened, repeat.
 * Everything it needs to continue is in the log, so a restarted process picks up where it stopped.
 * Each append is one step with an effect (a model call, a tool call, a review) together with the
 * steps that follow from it without one (entering the next stage, completing): one commit a step.
 */
export async function driveRun(ports: DriverPorts, log: RunLog): Promise<void> {
  for (;;) {
    const step = nextStep(log.state, ports.limits);
    if (step.kind === 'finished') return;
    let batch: Batch;
    try {
      batch = await perform(ports, log.state, step);
      batch.events = await settled(ports, log.state, batch.events);
    } catch (error) {
      batch = { events: [runFailed(ports, log.state, error)] };
    }
    await log.append(batch.events, batch.causationId);
  }
}

async function perform(ports: DriverPorts, state: RunState, step: Exclude<RunStep, { kind: 'finished' }>): Promise<Batch> {
  switch (step.kind) {
    case 'enter_stage':
      return { events: [await stageEntered(ports, state, step.stage, step.iteration)] };
    case 'call_model':
      return callModel(ports, state);
    case 'interpret':
      // Only for a log that holds a response nobody interpreted yet (written before responses and their meaning were stored together).
      return { events: await interpretation(ports, state), causationId: state.unprocessed?.requestId };
    case 'execute_tool':
      return executeTool(ports, state, step.call);
    case 'review':
      return { events: [await review(ports, state)] };
    case 'complete':
      return { events: [completed(state)] };
    default: {
      const unreachable: never = step;
      throw new Error(`unknown step ${JSON.stringify(unreachable)}`);
    }
  }
}

const preview = (state: RunState, events: PendingEvent[]): RunState =>
  events.reduce((s, e) => evolveRun(s, { ...e, metadata: PREVIEW_METADATA } as StagecraftEvent), state);

const completed = (state: RunState): PendingEvent => pending('RunCompleted', { deliveryState: state.deliveryState ?? 'NEEDS_WORK', answer: state.answer ?? '' });

/**
 * `events`, then the steps they lead to that have no effect of their own: entering the next stage
 * (a policy decision) and completing. The steps `nextStep` would give one by one, in the same commit.
 */
export async function settled(ports: DriverPorts, state: RunState, events: PendingEvent[]): Promise<PendingEvent[]> {
  const all = [...events];
  let after = preview(state, events);
  for (;;) {
    const step = nextStep(after, ports.limits);
    let next: PendingEvent;
    if (step.kind === 'enter_stage') next = await stageEntered(ports, after, step.stage, step.iteration);
    else if (step.kind === 'complete') next = completed(after);
    else return all;
    all.push(next);
    after = preview(after, [next]);
  }
}

/** For the batch that starts a run: a first stage that cannot be entered fails the run it started. */
export async function settledOrFailed(ports: DriverPorts, state: RunState, events: PendingEvent[]): Promise<PendingEvent[]> {
  try {
    return await settled(ports, state, events);
  } catch (error) {
    return [...events, runFailed(ports, preview(state, events), error)];
  }
}

/** Any failure but a lost race ends the run with an event that says why. */
function runFailed(ports: DriverPorts, state: RunState, error: unknown): PendingEvent {
  const reply = toErrorReply(error);
  if (reply.code === 'CONFLICT') throw error; // another writer owns this run now
  ports.logger.error({ runId: state.start?.runId, stage: state.stage, code: reply.code, err: reply.message }, 'run failed');
  return pending('RunFailed', { code: reply.code, reason: reply.message, stage: state.stage ?? undefined });
}

function activeAgent(state: RunState): string {
  return state.delegations.at(-1)?.agentType ?? MAIN_AGENT;
}

const delegationOf = (state: RunState) => ({ depth: state.delegations.length, chain: state.delegations.map((d) => d.agentType) });

async function decidePolicy(ports: DriverPorts, state: RunState, stage: Stage): Promise<StagePolicy> {
  const start = state.start!;
  const { policy } = await ports.requester.request('policy.decide', { userMode: start.userMode, reasoningEnabled: start.reasoningEnabled, stage, delegation: delegationOf(state) });
  // The user's switches are theirs alone: a policy that changes them stops the run.
  if (policy.userMode !== start.userMode || policy.reasoningEnabled !== start.reasoningEnabled || policy.stage !== stage) {
    throw new StagecraftError('INVARIANT_VIOLATION', `policy for ${stage} changed the user's switches (mode ${policy.userMode}, reasoning ${policy.reasoningEnabled})`);
  }
  return policy;
}

async function stageEntered(ports: DriverPorts, state: RunState, stage: Stage, iteration: number): Promise<PendingEvent> {
  const policy = await decidePolicy(ports, state, stage);
  const agentType = activeAgent(state);
  const contextId = formatContextId({
    workflowRunId: state.start!.runId,
    agentType,
    sequence: (state.stageEntries[agentType] ?? 0) + 1,
    timestamp: ports.clock().toISOString(),
  });
  return pending('StageEntered', { stage, iteration, policy, contextId });
}

function variables(state: RunState) {
  const start = state.start!;
  return {
    project_root: start.projectRoot,
    user_input: start.userInput,
    tool_summary: state.toolLog.length ? state.toolLog.slice(-20).map((l, i) => `${i + 1}. ${l}`).join('\n') : 'No tools have run yet.',
    last_step_outcome: state.lastOutcome ? renderOutcome(state.lastOutcome) : 'No step has finished yet.',
  };
}

function activeInstructions(state: RunState) {
  const top = state.delegations.at(-1);
  if (!top) return [];
  return [{ kind: 'DelegateReasoning' as const, agentType: top.agentType, agentPrompt: top.agentPrompt, markIntermediate: top.markIntermediate }];
}

async function buildRequest(ports: DriverPorts, state: RunState): Promise<{ messages: ChatMessage[]; tools: ToolSpec[]; promptIds: string[] }> {
  const policy = state.policy!;
  const assembled = await ports.requester.request('prompt.assemble', {
    policy,
    variables: variables(state),
    instructions: activeInstructions(state),
    agentType: activeAgent(state),
  });
  const tools = policy.toolLoop ? toolSpecs(policy.tools) : [];
  return { messages: [{ role: 'system', content: assembled.system }, ...state.prior, ...state.history], tools, promptIds: assembled.promptIds };
}

/**
 * One model step, stored as one append: what was asked (prompt bodies by hash), what came back and
 * what it means. A crash during the call leaves no trace of it, and the restarted run asks again.
 */
async function callModel(ports: DriverPorts, state: RunState): Promise<Batch> {
  const start = state.start!;
  const policy = state.policy!;
  const request = await buildRequest(ports, state);
  const violations = requestViolations(start, { policy, ...request });
  if (violations.length > 0) throw new StagecraftError('INVARIANT_VIOLATION', violations.join('; '));

  const requestId = state.pending?.requestId ?? `${start.runId}.m${state.modelRequests + 1}`;
  const events: PendingEvent[] = [];
  if (!state.pending) {
    // Earlier turns are stored in the conversation stream already.
    const hashed = hashPrompt(request.messages, request.tools, new Set([...state.knownBodies, ...storedHashesOf(state.prior)]));
    events.push(
      pending('ModelRequested', {
        requestId,
        stage: policy.stage,
        model: ports.gateway.model,
        toolNames: request.tools.map((t) => t.name) as StagePolicy['tools'],
        messageCount: request.messages.length,
        tokenEstimate: hashed.tokenEstimate,
        promptHash: hashed.promptHash,
        messageHashes: hashed.messageHashes,
        newBodies: hashed.newBodies,
      }),
    );
  }
  const meta: ModelCallMeta = { requestId, runId: start.runId, conversationId: start.conversationId, stage: policy.stage, userMode: start.userMode, reasoningEnabled: start.reasoningEnabled };
  let response;
  try {
    response = await ports.gateway.complete(meta, request.messages, request.tools);
  } catch (error) {
    // The request that failed is stored with the failure.
    return { events: [...events, runFailed(ports, state, error)], causationId: requestId };
  }
  events.push(
    pending('ModelResponded', {
      requestId,
      content: response.content,
      toolCalls: response.toolCalls,
      usage: response.usage,
      latencyMs: response.latencyMs,
      finishReason: response.finishReason,
    }),
  );
  return { events: [...events, ...(await interpretation(ports, preview(state, events)))], causationId: requestId };
}

async function interpretation(ports: DriverPorts, state: RunState): Promise<PendingEvent[]> {
  const result = interpretResponse(state, ports.limits);
  const events = [...result.events];
  if (result.failure) {
    events.push(pending('RunFailed', { code: result.failure.code, reason: result.failure.reason, stage: state.stage ?? undefined }));
  } else if (result.correction) {
    const { system } = await ports.requester.request('prompt.assemble', {
      policy: { ...state.policy!, prompts: [result.correction.promptId] },
      variables: variables(state),
      instructions: [],
    });
    const content = `${system.trim()}\n\n(${result.correction.reason})`;
    events.push(pending('MessageAppended', { messageId: `${state.start!.runId}.msg${state.messageCount + events.filter((e) => e.type === 'MessageAppended').length + 1}`, role: 'user', content, instructions: [], intermediate: true, kind: 'correction', stage: state.stage ?? undefined }));
  } else if (result.transition) {
    // The new stage is decided on the state these events lead to (a delegation changes who speaks next).
    events.push(await stageEntered(ports, preview(state, events), result.transition.stage, result.transition.iteration));
  }
  return events;
}

/**
 * One attempt waits this long at most. A tool service that dies mid-request never answers, and a
 * request over NATS cannot tell: a short attempt and a retry with the same call id find out sooner.
 * A retry of a call that is still running simply waits on it (the tool service does not run it twice).
 */
const TOOL_ATTEMPT_TIMEOUT_MS = 10_000;
/** Room on top of the call's own budget for restarts and the request itself. */
const TOOL_REQUEST_SLACK_MS = 30_000;
const TOOL_RETRY_DELAYS_MS = [100, 250, 500, 1_000, 2_000];

/**
 * Asks the tool service to run a call, again with the same call id while it is unreachable or silent:
 * the call id makes the retry safe (a call that ran is replayed, one that was cut off is recorded as
 * interrupted, never run twice), so a restarting tool service does not fail the run.
 */
async function requestToolCall(ports: DriverPorts, request: RequestOf<'tool.execute'>): Promise<ReplyOf<'tool.execute'>> {
  const giveUpAt = ports.clock().getTime() + toolCallBudgetMs(request.tool, request.arguments) + TOOL_REQUEST_SLACK_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await ports.requester.request('tool.execute', request, { timeoutMs: TOOL_ATTEMPT_TIMEOUT_MS, causationId: request.callId });
    } catch (error) {
      const { code } = toErrorReply(error);
      if ((code !== 'UNAVAILABLE' && code !== 'TIMEOUT') || ports.clock().getTime() > giveUpAt) throw error;
      if (code === 'UNAVAILABLE') ports.logger.warn({ runId: request.runId, callId: request.callId, attempt: attempt + 1 }, 'no tool service answers; asking again with the same call id');
      await sleep(TOOL_RETRY_DELAYS_MS[Math.min(attempt, TOOL_RETRY_DELAYS_MS.length - 1)]);
    }
  }
}

async function executeTool(ports: DriverPorts, state: RunState, call: OpenToolCall): Promise<Batch> {
  const start = state.start!;
  const messageId = `${start.runId}.msg${state.messageCount + 1}`;
  const base = { messageId, role: 'tool' as const, instructions: [], intermediate: false, kind: 'tool_result' as const, stage: state.stage ?? undefined, toolCallId: call.modelCallId };
  try {
    const result = await requestToolCall(ports, {
      callId: call.callId,
      runId: start.runId,
      tool: call.tool as StagePolicy['tools'][number],
      arguments: call.arguments,
      stage: state.stage!,
      userMode: start.userMode,
      reasoningEnabled: start.reasoningEnabled,
      delegation: delegationOf(state),
      projectRoot: start.projectRoot,
    });
    const events = [
      pending('ToolCallCompleted', { callId: call.callId, tool: result.tool, ok: result.ok, output: result.output, truncated: result.truncated, durationMs: result.durationMs }),
      pending('MessageAppended', { ...base, content: result.output }),
    ];
    return { events, causationId: call.callId };
  } catch (error) {
    const reply = toErrorReply(error);
    if (reply.code !== 'FORBIDDEN_TOOL' && reply.code !== 'FORBIDDEN_PATH' && reply.code !== 'VALIDATION') throw error;
    const events = [
      pending('ToolCallRejected', { callId: call.callId, tool: call.tool, stage: state.stage!, code: reply.code, reason: reply.message }),
      pending('MessageAppended', { ...base, content: `tool_error: ${reply.code}\nproblem: ${reply.message}\nretry: use a tool and arguments this stage allows` }),
    ];
    return { events, causationId: call.callId };
  }
}

async function review(ports: DriverPorts, state: RunState): Promise<PendingEvent> {
  const start = state.start!;
  const { tool_summary, last_step_outcome } = variables(state);
  try {
    const { report, modelCalls } = await ports.requester.request('qa.review', {
      runId: start.runId,
      conversationId: start.conversationId,
      userMode: start.userMode,
      reasoningEnabled: start.reasoningEnabled,
      userInput: start.userInput,
      answer: state.answer ?? '',
      projectRoot: start.projectRoot,
      toolSummary: tool_summary,
      lastStepOutcome: last_step_outcome,
    });
    return pending('QAReportIssued', { report, modelCalls });
  } catch (error) {
    // QA is advisory: without it the run still completes, and says why the review is missing.
    return pending('QAReportIssued', { report: { verdict: 'concerns', summary: `QA review unavailable: ${toErrorReply(error).message}`, findings: [] } });
  }
}
