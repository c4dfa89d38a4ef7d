import {
  ChatMessage,
  DeliveryState,
  EventData,
  QAReport,
  ReasoningOutcome,
  Stage,
  StagecraftEvent,
  StagePolicy,
  ToolCall,
} from '@stagecraft/contracts';

export type RunStatus = 'new' | 'running' | 'completed' | 'failed';

export interface OpenToolCall {
  callId: string;
  modelCallId: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export interface Delegation {
  agentType: string;
  agentPrompt: string;
  markIntermediate: boolean;
}

/** Everything the next step depends on, folded from the run's own stream and nothing else. */
export interface RunState {
  start: EventData<'RunStarted'> | null;
  /**
   * The earlier turns `start.historyThrough` refers to, loaded from the conversation stream by the shell
   * that opens the run; no event of the run's own stream changes them.
   */
  prior: ChatMessage[];
  status: RunStatus;
  stage: Stage | null;
  iteration: number;
  policy: StagePolicy | null;
  stageEntries: Record<string, number>;
  history: ChatMessage[];
  messageCount: number;
  modelRequests: number;
  pending: { requestId: string; stage: Stage } | null;
  unprocessed: EventData<'ModelResponded'> | null;
  openToolCalls: OpenToolCall[];
  toolRoundClosed: boolean;
  toolLog: string[];
  knownBodies: string[];
  lastOutcome: ReasoningOutcome | null;
  corrections: number;
  deliveryChecks: number;
  deliveryState: DeliveryState | null;
  answer: string | null;
  qaReport: QAReport | null;
  delegations: Delegation[];
}

export const initialRunState = (): RunState => ({
  start: null,
  prior: [],
  status: 'new',
  stage: null,
  iteration: 0,
  policy: null,
  stageEntries: {},
  history: [],
  messageCount: 0,
  modelRequests: 0,
  pending: null,
  unprocessed: null,
  openToolCalls: [],
  toolRoundClosed: false,
  toolLog: [],
  knownBodies: [],
  lastOutcome: null,
  corrections: 0,
  deliveryChecks: 0,
  deliveryState: null,
  answer: null,
  qaReport: null,
  delegations: [],
});

export const toChatMessage = (d: EventData<'MessageAppended'>): ChatMessage => ({
  role: d.role === 'system' ? 'user' : d.role,
  content: d.content,
  ...(d.toolCalls?.length ? { toolCalls: d.toolCalls as ToolCall[] } : {}),
  ...(d.toolCallId ? { toolCallId: d.toolCallId } : {}),
});

export function evolveRun(state: RunState, event: StagecraftEvent): RunState {
  // Any event after a response means the response has been interpreted (interpretation is one append).
  const s: RunState = event.type === 'ModelResponded' ? state : { ...state, unprocessed: null };
  switch (event.type) {
    case 'RunStarted':
      return { ...s, start: event.data, status: 'running' };
    case 'StageEntered': {
      const agentType = event.data.contextId.split('/')[1];
      return {
        ...s,
        stage: event.data.stage,
        iteration: event.data.iteration,
        policy: event.data.policy,
        stageEntries: { ...s.stageEntries, [agentType]: (s.stageEntries[agentType] ?? 0) + 1 },
        corrections: 0,
        toolRoundClosed: false,
      };
    }
    case 'ModelRequested':
      return {
        ...s,
        modelRequests: s.modelRequests + 1,
        pending: { requestId: event.data.requestId, stage: event.data.stage },
        knownBodies: [...s.knownBodies, ...Object.keys(event.data.newBodies)],
        toolRoundClosed: false,
      };
    case 'ModelResponded':
      return { ...s, pending: null, unprocessed: event.data };
    case 'ReasoningRecorded':
      return { ...s, lastOutcome: event.data.outcome };
    case 'MessageAppended': {
      const counted = { ...s, messageCount: s.messageCount + 1 };
      if (event.data.kind === 'correction') return { ...counted, corrections: s.corrections + 1, history: [...s.history, toChatMessage(event.data)] };
      const isAnswer = event.data.kind === 'assistant' && s.delegations.length === 0 && (s.stage === 'act' || s.stage === 'tool_followup') && !event.data.toolCalls?.length && event.data.content.trim() !== '';
      return { ...counted, history: [...s.history, toChatMessage(event.data)], answer: isAnswer ? event.data.content : s.answer };
    }
    case 'ToolCallRequested': {
      const args = event.data.arguments;
      const modelCallId = event.data.modelCallId ?? event.data.callId;
      return { ...s, openToolCalls: [...s.openToolCalls, { callId: event.data.callId, modelCallId, tool: event.data.tool, arguments: args }] };
    }
    case 'ToolCallCompleted':
    case 'ToolCallRejected': {
      const open = s.openToolCalls.filter((c) => c.callId !== event.data.callId);
      const line =
        event.type === 'ToolCallCompleted'
          ? `${event.data.tool} ${event.data.ok ? 'ok' : 'failed'}`
          : `${event.data.tool} refused (${event.data.code})`;
      return { ...s, openToolCalls: open, toolRoundClosed: open.length === 0, toolLog: [...s.toolLog, line] };
    }
    case 'DeliveryChecked':
      // DONE is authoritative: nothing after it can turn it back into NEEDS_WORK.
      return { ...s, deliveryChecks: s.deliveryChecks + 1, deliveryState: s.deliveryState === 'DONE' ? 'DONE' : event.data.state };
    case 'QAReportIssued':
      return { ...s, qaReport: event.data.report };
    case 'InstructionIssued': {
      const i = event.data.instruction;
      if (!event.data.accepted) return s;
      if (i.kind === 'DelegateReasoning') return { ...s, delegations: [...s.delegations, { agentType: i.agentType, agentPrompt: i.agentPrompt, markIntermediate: i.markIntermediate }] };
      if (i.kind === 'ReturnControl') return { ...s, delegations: s.delegations.slice(0, -1) };
      return s;
    }
    case 'RunCompleted':
      return { ...s, status: 'completed', answer: event.data.answer, deliveryState: s.deliveryState === 'DONE' ? 'DONE' : event.data.deliveryState };
    case 'RunFailed':
      return { ...s, status: 'failed' };
    case 'MemoryRetained':
      return s;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

export const foldRun = (events: readonly StagecraftEvent[]): RunState => events.reduce(evolveRun, initialRunState());
