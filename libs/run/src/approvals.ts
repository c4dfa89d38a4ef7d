import { ApprovalPolicy, EventData, StagecraftError, ToolName, toolErrorText } from '@stagecraft/contracts';
import { toolClassOf } from '@stagecraft/policy';
import { RunDecision, expectInStage } from './run-decision';
import { OpenToolCall } from './state';

/** The tool classes each of the user's approval choices holds back until a person says yes. */
const GATED_CLASSES: Record<ApprovalPolicy, readonly string[]> = {
  never: [],
  writes: ['write', 'execute'],
  commands: ['execute'],
};

/**
 * Memory operations that change what later runs are told: a retained or merged memory reaches every
 * later warmup of the project, so for approval they are writes. `memory_recall` only reads.
 */
const MEMORY_WRITES: readonly ToolName[] = ['memory_retain', 'memory_reflect'];

/** The class a call counts as when deciding whether it waits for a person. */
const approvalClassOf = (tool: ToolName): string => (MEMORY_WRITES.includes(tool) ? 'write' : toolClassOf(tool));

/** Whether a call of `tool` waits for a person under the run's `approve` choice (absent: nothing waits). */
export const isGated = (approve: ApprovalPolicy | undefined, tool: ToolName): boolean =>
  GATED_CLASSES[approve ?? 'never'].includes(approvalClassOf(tool));

/** Derived from the call id, so a restarted run that asks again asks under the same id. */
export const approvalIdOf = (callId: string): string => `${callId}.approval`;

const clip = (text: string, max: number): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** One line for the person deciding: the tool and what it would touch. */
export function approvalSummary(tool: ToolName, args: Record<string, unknown>): string {
  // A memory to retain is shown by its words, a reflection by its topic: that is what the person lets in.
  const target = [args['command'], args['path'], args['file'], args['content'], args['query']].find(
    (v) => typeof v === 'string' && v.trim() !== '',
  );
  const rest = Array.isArray(args['args']) ? ` ${args['args'].map(String).join(' ')}` : '';
  return target === undefined ? tool : `${tool} ${clip(`${String(target)}${rest}`, 200)}`;
}

/**
 * The rule that makes a run wait: when the next open call is gated and no person has been asked about
 * it, the same commit asks. Calls are asked about one at a time, in the order the model gave them.
 */
export function askForApprovalIfDue(decision: RunDecision): void {
  const s = decision.state;
  if (s.status !== 'running' || s.current?.step.kind !== 'tools' || s.pendingApproval) return;
  const next = s.current.step.open[0];
  if (next.approved || !isGated(s.start.approve, next.tool)) return;
  decision.add('ApprovalRequested', {
    approvalId: approvalIdOf(next.callId),
    kind: 'tool_call',
    summary: approvalSummary(next.tool, next.arguments),
    callId: next.callId,
    tool: next.tool,
    arguments: next.arguments,
  });
}

/** The call a pending approval holds back; an answer for anything else is a conflict and changes nothing. */
export function awaitedCall(decision: RunDecision, approvalId: string): OpenToolCall {
  const s = decision.state;
  const pending = s.status === 'running' ? s.pendingApproval : null;
  if (!pending || pending.approvalId !== approvalId)
    throw new StagecraftError(
      'CONFLICT',
      // The waiting id is never echoed: whoever answers must already know it (the run's own client does).
      pending ? `approval ${approvalId} is not the one this run waits for` : `no approval ${approvalId} is pending`,
    );
  const step = expectInStage(decision.state).current.step;
  const call = step.kind === 'tools' ? step.open.find((c) => c.callId === pending.callId) : undefined;
  if (!call) throw new StagecraftError('INTERNAL', `approval ${approvalId} holds back no open tool call`);
  return call;
}

/** What the model reads as the result of a call the user refused: what happened, why, and what to do instead. */
export function denialText(call: Pick<OpenToolCall, 'tool'>, reason: string | undefined): string {
  return toolErrorText({
    code: 'FORBIDDEN_TOOL',
    problem: `the user denied this ${call.tool} call${reason ? `: ${reason}` : ' (no reason given)'}`,
    retry: 'do not retry this call; work around it or explain in your answer what is left undone',
  });
}

export type ApprovalRequestedData = EventData<'ApprovalRequested'>;
