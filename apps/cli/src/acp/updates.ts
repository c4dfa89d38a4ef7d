import type { SessionUpdate, StopReason, ToolCallContent } from '@agentclientprotocol/sdk';
import type { ApprovalPolicy, ErrorCode, FeedEvent, FileChange } from '@stagecraft/contracts';
import { isGated } from '@stagecraft/run';
import { Plan, evolvePlan, finishPlan } from './plan';
import { toolKind, toolLocations, toolTitle } from './tool-calls';

/** What the mapping of one turn (one run) has seen so far. */
export interface Turn {
  projectRoot: string;
  approve: ApprovalPolicy;
  plan: Plan;
  /** The answer's text already streamed to the editor: the final answer is sent only when it was not. */
  streamed: string;
  /** Replaying a stored turn (session/load): the user's message is sent too, and nothing was streamed. */
  replay: boolean;
  /** Why the model stopped its last answer (`content_filter`: it refused). */
  lastFinish: string | null;
  /** Set once the run has ended: how the prompt answers. */
  stop: StopReason | null;
  /** The run failed: the prompt answers with this error. */
  failure: { code: ErrorCode; reason: string } | null;
  /** The tool call each open approval is about. */
  approvals: Readonly<Record<string, string>>;
}

export const newTurn = (projectRoot: string, approve: ApprovalPolicy, replay = false): Turn => ({
  projectRoot,
  approve,
  plan: [],
  streamed: '',
  replay,
  lastFinish: null,
  stop: null,
  failure: null,
  approvals: {},
});

const textChunk = (kind: 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk', text: string): SessionUpdate => ({
  sessionUpdate: kind,
  content: { type: 'text', text },
});

const failedCall = (callId: string, reason: string): SessionUpdate => ({
  sessionUpdate: 'tool_call_update',
  toolCallId: callId,
  status: 'failed',
  content: [{ type: 'content', content: { type: 'text', text: reason } }],
});

/** The answer, unless the streamed text already said it. */
function answerUpdates(turn: Turn, answer: string): SessionUpdate[] {
  const text = answer.trim();
  if (text === '' || turn.streamed.includes(text)) return [];
  return [textChunk('agent_message_chunk', turn.streamed === '' ? text : `\n\n${text}`)];
}

/**
 * The `session/update`s one public run event makes, and the turn after it. `changes` gives the content
 * of a completed write (its diffs), computed by the caller, which can read files.
 */
export function updatesOf(turn: Turn, event: FeedEvent, changes: ToolCallContent[] = []): { turn: Turn; updates: SessionUpdate[] } {
  const same = { turn, updates: [] as SessionUpdate[] };
  switch (event.type) {
    case 'RunStarted':
      return turn.replay ? { turn, updates: [textChunk('user_message_chunk', event.data.userInput)] } : same;
    case 'ModelResponded':
      return { turn: { ...turn, lastFinish: event.data.finishReason }, updates: [] };
    case 'ReasoningRecorded': {
      const plan = evolvePlan(turn.plan, event.data.outcome);
      return { turn: { ...turn, plan }, updates: [{ sessionUpdate: 'plan', entries: [...plan] }] };
    }
    case 'ToolCallRequested': {
      const { callId, tool, arguments: args } = event.data;
      const waits = isGated(turn.approve, tool);
      return {
        turn,
        updates: [
          {
            sessionUpdate: 'tool_call',
            toolCallId: callId,
            title: toolTitle(tool, args),
            kind: toolKind(tool),
            status: waits || turn.replay ? 'pending' : 'in_progress',
            locations: toolLocations(turn.projectRoot, tool, args),
            rawInput: args,
          },
        ],
      };
    }
    case 'ApprovalRequested': {
      const { approvalId, callId } = event.data;
      return callId ? { turn: { ...turn, approvals: { ...turn.approvals, [approvalId]: callId } }, updates: [] } : same;
    }
    case 'ApprovalGiven': {
      const callId = turn.approvals[event.data.approvalId];
      return callId ? { turn, updates: [{ sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'in_progress' }] } : same;
    }
    case 'ApprovalDenied': {
      const callId = turn.approvals[event.data.approvalId];
      return callId ? { turn, updates: [failedCall(callId, `denied: ${event.data.reason}`)] } : same;
    }
    case 'ToolCallCompleted': {
      const { callId, ok, output, interrupted } = event.data;
      const status = ok && !interrupted ? 'completed' : 'failed';
      const said = output.trim() === '' ? [] : [{ type: 'content' as const, content: { type: 'text' as const, text: output } }];
      return {
        turn,
        updates: [{ sessionUpdate: 'tool_call_update', toolCallId: callId, status, content: [...changes, ...said] }],
      };
    }
    case 'ToolCallRejected':
      return { turn, updates: [failedCall(event.data.callId, `${event.data.code}: ${event.data.reason}`)] };
    case 'RunCompleted': {
      const plan = finishPlan(turn.plan);
      const stop: StopReason = event.data.limit ? 'max_turn_requests' : turn.lastFinish === 'content_filter' ? 'refusal' : 'end_turn';
      return {
        turn: { ...turn, plan, stop },
        updates: [
          ...(plan.length ? [{ sessionUpdate: 'plan' as const, entries: [...plan] }] : []),
          ...answerUpdates(turn, event.data.answer),
        ],
      };
    }
    case 'RunFailed':
      return {
        turn: { ...turn, stop: turn.lastFinish === 'content_filter' ? 'refusal' : 'end_turn', failure: event.data },
        updates: turn.replay ? [textChunk('agent_message_chunk', `The run failed (${event.data.code}): ${event.data.reason}`)] : [],
      };
    case 'RunCancelled':
      return { turn: { ...turn, stop: 'cancelled' }, updates: [] };
    case 'RunContinued':
      return { turn: { ...turn, stop: null }, updates: [] };
    case 'StageEntered':
    case 'ModelRequested':
    case 'InstructionIssued':
    case 'MessageAppended':
    case 'HistoryCompacted':
    case 'DeliveryChecked':
    case 'QAReportIssued':
    case 'LimitReached':
      return same;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** The files a completed write changed, as the feed reports them. */
export const changesOf = (event: FeedEvent): readonly FileChange[] =>
  event.type === 'ToolCallCompleted' && event.data.ok ? (event.data.changes ?? []) : [];
