import { RunView, StagecraftEvent } from '@stagecraft/contracts';

/**
 * The run as a caller sees it, folded from its stream. `null` until RunStarted: a stream that
 * does not begin with it is not a run.
 */
export function evolveRunView(view: RunView | null, event: StagecraftEvent): RunView | null {
  if (event.type === 'RunStarted') {
    const d = event.data;
    return {
      runId: d.runId,
      conversationId: d.conversationId,
      userMode: d.userMode,
      reasoningEnabled: d.reasoningEnabled,
      status: 'running',
      stage: null,
      deliveryState: null,
      answer: null,
      eventCount: 1,
      revision: 0,
    };
  }
  if (!view) return null;
  const next = { ...view, eventCount: view.eventCount + 1, revision: view.revision + 1 };
  switch (event.type) {
    case 'StageEntered':
      return { ...next, stage: event.data.stage };
    case 'DeliveryChecked':
      // A DONE delivery is authoritative: nothing after it may turn it back.
      return { ...next, deliveryState: view.deliveryState === 'DONE' ? 'DONE' : event.data.state };
    case 'RunCompleted':
      return { ...next, status: 'completed', answer: event.data.answer, deliveryState: view.deliveryState === 'DONE' ? 'DONE' : event.data.deliveryState };
    case 'RunFailed':
      return { ...next, status: 'failed' };
    case 'ModelRequested':
    case 'ModelResponded':
    case 'ReasoningRecorded':
    case 'InstructionIssued':
    case 'ToolCallRequested':
    case 'ToolCallCompleted':
    case 'ToolCallRejected':
    case 'MessageAppended':
    case 'QAReportIssued':
    case 'MemoryRetained':
      return next;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

export function foldRunView(events: readonly StagecraftEvent[]): RunView | null {
  return events.reduce<RunView | null>(evolveRunView, null);
}
