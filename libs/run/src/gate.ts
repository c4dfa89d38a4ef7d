import { DeliveryState, ReasoningOutcome, ToolCall, canonicalJson, parseToolArguments, streams } from '@stagecraft/contracts';
import { deliveryStatements } from '@stagecraft/reasoning';
import type { ReviewToCarry } from './compaction/summary-digest';
import type { RunProgress, RunStart, RunState } from './state';

/**
 * Rules version 2 (docs/decisions/0056): a strict delivery gate, the stuck-loop detector, empty
 * replies recovered as empty whatever the reasoning switch, and delegation tags that refuse the tool
 * calls beside them. A run records the version it follows in `RunStarted.rules`; logs without it
 * follow version 1 and replay as they ran.
 */
export const RULES_VERSION = 2 as const;

export const strictRules = (start: Pick<RunStart, 'rules'>): boolean => (start.rules ?? 1) >= 2;

/** The same call (tool and arguments) made this many rounds in a row is a stuck loop: four, as in OpenHands. */
export const STUCK_REPEATS = 4;

export interface GateVerdict {
  state: DeliveryState;
  /** Why it is not `DONE`; absent when it is. */
  reason?: string;
}

/**
 * The gate's answer read strictly: `NEEDS_WORK` when its reasoning outcome or any `Delivery:` line it
 * states (visible or in any reasoning block) says so, or when there is no answer to deliver; `DONE`
 * only when something says `DONE` and nothing says otherwise.
 */
export function strictVerdict(outcome: ReasoningOutcome | null, reply: string, answer: string | null): GateVerdict {
  const stated = [...(outcome ? [outcome.delivery_state] : []), ...deliveryStatements(reply)];
  if (stated.includes('NEEDS_WORK'))
    return { state: 'NEEDS_WORK', reason: `the delivery check said NEEDS_WORK${outcome?.next_action ? `: ${outcome.next_action}` : ''}` };
  if (!stated.includes('DONE')) return { state: 'NEEDS_WORK', reason: 'the delivery check gave no verdict' };
  if (!answer?.trim()) return { state: 'NEEDS_WORK', reason: 'no answer was given to deliver' };
  return { state: 'DONE' };
}

const callKey = (call: Pick<ToolCall, 'name' | 'arguments'>): string =>
  `${call.name} ${canonicalJson(parseToolArguments(call.arguments) ?? call.arguments)}`;

/**
 * How many of the model's latest tool-call replies in a row, `calls` included, made exactly these calls:
 * the OpenHands stuck detector's first pattern (the same action again and again).
 */
export function repeatedCalls(history: RunProgress['history'], calls: readonly ToolCall[]): number {
  if (calls.length === 0) return 0;
  const key = calls.map(callKey).join('\n');
  let repeats = 1;
  for (let i = history.length - 1; i >= 0; i--) {
    const { message } = history[i];
    if (message.role !== 'assistant') continue;
    if (!message.toolCalls?.length || message.toolCalls.map(callKey).join('\n') !== key) break;
    repeats += 1;
  }
  return repeats;
}

/** Why a run that did not reach `DONE` ended there, as its `RunCompleted.cause` says. */
export function endCause(s: Pick<RunProgress, 'limitReached' | 'gateReason' | 'answer'>, qaFindings: number): string {
  const parts = [
    s.limitReached ? `${s.limitReached} ran out` : '',
    s.gateReason ?? (s.answer?.trim() ? 'the delivery check did not say DONE' : 'no answer was given'),
    qaFindings > 0 ? `QA found ${qaFindings} issue(s)` : '',
  ];
  return parts.filter(Boolean).join('; ').slice(0, 2_000);
}

/**
 * The review a completed run hands on to the next attempt (seed 002 §2.3): its findings, when the run
 * ended short of `DONE` under rules version 2, citing the `QAReportIssued` of `events` (the run's stream
 * from its start, so an event's index is its revision).
 */
export function reviewToCarry(state: RunState, events: readonly { type: string }[]): ReviewToCarry | undefined {
  if (state.status !== 'completed' || state.deliveryState === 'DONE' || !strictRules(state.start)) return undefined;
  const findings = state.qaReport?.findings ?? [];
  if (findings.length === 0) return undefined;
  const revision = events.findLastIndex((e) => e.type === 'QAReportIssued');
  const origin = revision < 0 ? null : { stream: streams.run(state.start.runId), from: revision, to: revision };
  return { findings, origin };
}
