import {
  DelegationState,
  EventData,
  PromptAssembleRequest,
  ReasoningOutcome,
  RunLimitName,
  Stage,
  StagePolicy,
} from '@stagecraft/contracts';
import { PendingEvent } from './pending-event';
import { renderOutcome } from '@stagecraft/reasoning';
import { MAIN_AGENT } from './ids';
import { RunLimits } from './limits';
import { Delegation, RunProgress, RunStart, StageState } from './state';

/** The rules a run follows, each once. `decide` and `evolve` call them; nothing else re-states them. */

export const isActing = (stage: Stage | undefined): boolean => stage === 'act' || stage === 'tool_followup';

/** Agent runs with reasoning plan first; every other run starts acting. */
export const firstStage = (start: RunStart): Stage => (start.userMode === 'agent' && start.reasoningEnabled ? 'warmup' : 'act');

/** The user's answer is what the main agent last said in an acting stage without calling a tool. */
export function isAnswer(s: Pick<RunProgress, 'delegations' | 'current'>, message: EventData<'MessageAppended'>): boolean {
  return (
    message.kind === 'assistant' &&
    s.delegations.length === 0 &&
    isActing(s.current?.stage) &&
    !message.toolCalls?.length &&
    message.content.trim() !== ''
  );
}

export function toolLogLine(event: Extract<PendingEvent, { type: 'ToolCallCompleted' | 'ToolCallRejected' }>): string {
  return event.type === 'ToolCallCompleted'
    ? `${event.data.tool} ${event.data.ok ? 'ok' : 'failed'}`
    : `${event.data.tool} refused (${event.data.code})`;
}

export interface Transition {
  stage: Stage;
  iteration: number;
  /** The bound that ran out and led here, when one did: recorded as `LimitReached`. */
  limit?: RunLimitName;
}

/** After an acting stage answered without tools, or when the tool loop's bound is spent: the delivery gate. */
export const toDeliveryGate = (deliveryChecks: number): Transition => ({ stage: 'delivery_check', iteration: deliveryChecks });

/** One more round of `stage` while the tool loop's bound allows, then the delivery gate. */
function withinToolLoop(stage: Stage, current: StageState, deliveryChecks: number, limits: RunLimits): Transition {
  const next = current.iteration + 1;
  return next > limits.maxToolIterations ? { ...toDeliveryGate(deliveryChecks), limit: 'maxToolIterations' } : { stage, iteration: next };
}

/** After a tool round: a follow-up that reads the results. */
export const nextActingStep = (current: StageState, deliveryChecks: number, limits: RunLimits): Transition =>
  withinToolLoop('tool_followup', current, deliveryChecks, limits);

/** After a change of speaker: the same stage again for the new speaker. */
export const afterSpeakerChange = (current: StageState, deliveryChecks: number, limits: RunLimits): Transition =>
  withinToolLoop(current.stage, current, deliveryChecks, limits);

/** After the gate: QA once the work is DONE or the checks are spent, otherwise back to work. */
export function afterDeliveryCheck(done: boolean, deliveryChecks: number, limits: RunLimits): Transition {
  const checked = deliveryChecks + 1;
  if (done) return { stage: 'qa_review', iteration: 0 };
  return checked >= limits.maxDeliveryChecks
    ? { stage: 'qa_review', iteration: 0, limit: 'maxDeliveryChecks' }
    : { stage: 'act', iteration: checked };
}

export const activeAgent = (delegations: readonly Delegation[]): string => delegations.at(-1)?.agentType ?? MAIN_AGENT;

export const delegationOf = (delegations: readonly Delegation[]): DelegationState => ({
  depth: delegations.length,
  chain: delegations.map((d) => d.agentType),
});

/** How many tool results the prompt's summary lists. */
export const TOOL_SUMMARY_LINES = 20;

/** What `promptVariables` reads of a run. */
export type PromptFacts = Pick<
  RunProgress,
  'start' | 'toolLog' | 'lastOutcome' | 'history' | 'deliveryChecks' | 'deliveryState' | 'limitReached'
>;

/** The `{{variables}}` every prompt of the run is assembled with. */
export function promptVariables(s: PromptFacts) {
  return {
    project_root: s.start.projectRoot,
    user_input: s.start.userInput,
    tool_summary: s.toolLog.length
      ? s.toolLog
          .slice(-TOOL_SUMMARY_LINES)
          .map((l, i) => `${i + 1}. ${l}`)
          .join('\n')
      : 'No tools have run yet.',
    last_step_outcome: s.lastOutcome ? renderOutcome(s.lastOutcome) : observedOutcome(s),
  };
}

/** How many of the latest tool results, and how much of the latest reply, an observed outcome quotes. */
const OBSERVED_TOOL_LINES = 3;
const OBSERVED_REPLY_CHARS = 600;

/**
 * Where the run stands when no reasoning block says so (reasoning off, or none given yet): what the
 * log shows happened last. Only prompts read it, so older logs still replay to the same events.
 */
function observedOutcome(s: PromptFacts): string {
  // The latest reply only: one that just called tools is told by the tool results, not by older text.
  const last = s.history.findLast((m) => m.kind === 'assistant');
  const reply = last?.message.content.trim() ? last : undefined;
  const lines = [
    ...(s.toolLog.length ? [`Latest tool results: ${s.toolLog.slice(-OBSERVED_TOOL_LINES).join('; ')}`] : []),
    ...(reply ? [`Latest reply: ${clip(reply.message.content)}`] : []),
    ...(s.deliveryChecks > 0 && s.deliveryState ? [`Delivery: ${s.deliveryState} after ${s.deliveryChecks} delivery check(s)`] : []),
    ...(s.limitReached ? [`Limit reached: ${s.limitReached}`] : []),
  ];
  return lines.length ? lines.join('\n') : 'No step has finished yet.';
}

const clip = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > OBSERVED_REPLY_CHARS ? `${flat.slice(0, OBSERVED_REPLY_CHARS)}…` : flat;
};

/** Who every prompt of the run speaks as: the active delegation's agent, else the workflow agent the run is, else the main agent. */
export const promptAgent = (s: Pick<RunProgress, 'start' | 'delegations'>): string =>
  s.delegations.at(-1)?.agentType ?? s.start.agent?.agentType ?? MAIN_AGENT;

/**
 * The one way the run asks for a prompt: the policy's prompts with the run's variables and, for an
 * agent of a workflow, the upstream context it builds on and the attempt it repeats. A run that is
 * no workflow's agent asks without them.
 */
export function promptRequest(
  s: PromptFacts & Pick<RunProgress, 'delegations'>,
  policy: StagePolicy,
  instructions: PromptAssembleRequest['instructions'],
  layout: PromptAssembleRequest['layout'] = 'whole',
): PromptAssembleRequest {
  const { agent } = s.start;
  return {
    policy,
    ...(layout === 'split' ? { layout } : {}),
    variables: promptVariables(s),
    instructions,
    ...(s.start.limits ? { maxDelegationDepth: s.start.limits.maxDelegationDepth } : {}),
    agentType: promptAgent(s),
    ...(agent ? { upstream: agent.upstream, ...(agent.previousAttempt ? { previousAttempt: agent.previousAttempt } : {}) } : {}),
  };
}

/** The active specialist's brief, which the system prompt carries while it speaks. */
export function activeInstructions(delegations: readonly Delegation[]) {
  const top = delegations.at(-1);
  return top
    ? [
        {
          kind: 'DelegateReasoning' as const,
          agentType: top.agentType,
          agentPrompt: top.agentPrompt,
          markIntermediate: top.markIntermediate,
        },
      ]
    : [];
}

const PLACEHOLDER = /^(?:none|n\/?a|tbd|todo|nothing|unknown|-+|\.{3}|…)?\.?$/i;

/** Reasoning that says work remains but names nothing to do next cannot steer the work. */
export const isThinReasoning = (outcome: ReasoningOutcome): boolean =>
  outcome.delivery_state === 'NEEDS_WORK' && PLACEHOLDER.test(outcome.next_action.trim());

const ASKS_USER =
  /\b(please|could you|can you|would you)\s+(provide|share|paste|upload|send|attach|give me)\b|\b(paste|share|upload|send)\s+(me\s+)?(the|your)\s+(file|files|diff|code|contents|logs?|output)\b/i;

export const asksUserForInput = (text: string): boolean => ASKS_USER.test(text);

const REFUSALS = new Set(['FORBIDDEN_TOOL', 'FORBIDDEN_PATH', 'VALIDATION']);

/** The tool service refused the call (the model can try another): anything else is a failure of the run. */
export const isRefusal = (fault: { code: string }): boolean => REFUSALS.has(fault.code);
