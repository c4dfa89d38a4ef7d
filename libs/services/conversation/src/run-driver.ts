import { ChatMessage, ModelCallMeta, Stage, StagePolicy, StagecraftError, StagecraftEvent, ToolSpec, toErrorReply } from '@stagecraft/contracts';
import { formatContextId } from '@stagecraft/context';
import { hashPrompt } from '@stagecraft/model-gateway';
import { renderOutcome } from '@stagecraft/reasoning';
import { OpenToolCall, PendingEvent, RunState, evolveRun, interpretResponse, nextStep, pending, requestViolations } from '@stagecraft/run';
import { toolSpecs } from '@stagecraft/tools';
import { DriverPorts } from './driver-ports';
import { RunLog } from './run-log';

const MAIN_AGENT = 'main';
/** Folding ahead of an append only needs types and data; the metadata is added when the events are stored. */
const PREVIEW_METADATA = { correlationId: 'preview', occurredAt: '1970-01-01T00:00:00.000Z' };

/**
 * Runs one run to its end: ask `nextStep`, do that one thing, append what happened, repeat.
 * Everything it needs to continue is in the log, so a restarted process picks up where it stopped.
 */
export async function driveRun(ports: DriverPorts, log: RunLog): Promise<void> {
  for (;;) {
    const step = nextStep(log.state, ports.limits);
    if (step.kind === 'finished') return;
    try {
      switch (step.kind) {
        case 'enter_stage':
          await log.append([await stageEntered(ports, log.state, step.stage, step.iteration)]);
          break;
        case 'call_model':
          await callModel(ports, log);
          break;
        case 'interpret':
          await interpret(ports, log);
          break;
        case 'execute_tool':
          await executeTool(ports, log, step.call);
          break;
        case 'review':
          await review(ports, log);
          break;
        case 'complete':
          await log.append([pending('RunCompleted', { deliveryState: log.state.deliveryState ?? 'NEEDS_WORK', answer: log.state.answer ?? '' })]);
          break;
        default: {
          const unreachable: never = step;
          throw new Error(`unknown step ${JSON.stringify(unreachable)}`);
        }
      }
    } catch (error) {
      const reply = toErrorReply(error);
      if (reply.code === 'CONFLICT') throw error; // another writer owns this run now
      ports.logger.error({ runId: log.runId, stage: log.state.stage, code: reply.code, err: reply.message }, 'run failed');
      await log.append([pending('RunFailed', { code: reply.code, reason: reply.message, stage: log.state.stage ?? undefined })]);
      return;
    }
  }
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
  return { messages: [{ role: 'system', content: assembled.system }, ...state.history], tools, promptIds: assembled.promptIds };
}

async function callModel(ports: DriverPorts, log: RunLog): Promise<void> {
  const state = log.state;
  const start = state.start!;
  const policy = state.policy!;
  const request = await buildRequest(ports, state);
  const violations = requestViolations(start, { policy, ...request });
  if (violations.length > 0) throw new StagecraftError('INVARIANT_VIOLATION', violations.join('; '));

  const requestId = state.pending?.requestId ?? `${start.runId}.m${state.modelRequests + 1}`;
  if (!state.pending) {
    const hashed = hashPrompt(request.messages, request.tools, new Set(state.knownBodies));
    await log.append([
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
    ]);
  }
  const meta: ModelCallMeta = { requestId, runId: start.runId, conversationId: start.conversationId, stage: policy.stage, userMode: start.userMode, reasoningEnabled: start.reasoningEnabled };
  const response = await ports.gateway.complete(meta, request.messages, request.tools);
  const responded = pending('ModelResponded', {
    requestId,
    content: response.content,
    toolCalls: response.toolCalls,
    usage: response.usage,
    latencyMs: response.latencyMs,
    finishReason: response.finishReason,
  });
  // The response and what it means are stored together: one append (and one commit) per model step.
  const answered = evolveRun(state, { ...responded, metadata: PREVIEW_METADATA } as StagecraftEvent);
  await log.append([responded, ...(await interpretation(ports, answered))], requestId);
}

/** Only for a log that holds a response nobody interpreted yet (written before responses and their meaning were stored together). */
async function interpret(ports: DriverPorts, log: RunLog): Promise<void> {
  await log.append(await interpretation(ports, log.state), log.state.unprocessed?.requestId);
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
    const after = events.reduce((s, e) => evolveRun(s, { ...e, metadata: PREVIEW_METADATA } as StagecraftEvent), state);
    events.push(await stageEntered(ports, after, result.transition.stage, result.transition.iteration));
  }
  return events;
}

async function executeTool(ports: DriverPorts, log: RunLog, call: OpenToolCall): Promise<void> {
  const state = log.state;
  const start = state.start!;
  const messageId = `${log.runId}.msg${state.messageCount + 1}`;
  const base = { messageId, role: 'tool' as const, instructions: [], intermediate: false, kind: 'tool_result' as const, stage: state.stage ?? undefined, toolCallId: call.modelCallId };
  try {
    const result = await ports.requester.request('tool.execute', {
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
    await log.append(
      [
        pending('ToolCallCompleted', { callId: call.callId, tool: result.tool, ok: result.ok, output: result.output, truncated: result.truncated, durationMs: result.durationMs }),
        pending('MessageAppended', { ...base, content: result.output }),
      ],
      call.callId,
    );
  } catch (error) {
    const reply = toErrorReply(error);
    if (reply.code !== 'FORBIDDEN_TOOL' && reply.code !== 'FORBIDDEN_PATH' && reply.code !== 'VALIDATION') throw error;
    await log.append(
      [
        pending('ToolCallRejected', { callId: call.callId, tool: call.tool, stage: state.stage!, code: reply.code, reason: reply.message }),
        pending('MessageAppended', { ...base, content: `tool_error: ${reply.code}\nproblem: ${reply.message}\nretry: use a tool and arguments this stage allows` }),
      ],
      call.callId,
    );
  }
}

async function review(ports: DriverPorts, log: RunLog): Promise<void> {
  const state = log.state;
  const start = state.start!;
  let report;
  try {
    ({ report } = await ports.requester.request('qa.review', {
      runId: start.runId,
      conversationId: start.conversationId,
      userMode: start.userMode,
      reasoningEnabled: start.reasoningEnabled,
      userInput: start.userInput,
      answer: state.answer ?? '',
      projectRoot: start.projectRoot,
      toolSummary: variables(state).tool_summary,
      lastStepOutcome: variables(state).last_step_outcome,
    }));
  } catch (error) {
    // QA is advisory: without it the run still completes, and says why the review is missing.
    report = { verdict: 'concerns' as const, summary: `QA review unavailable: ${toErrorReply(error).message}`, findings: [] };
  }
  await log.append([pending('QAReportIssued', { report })]);
}
