import type { DiffEntry, TimelineEvent } from './types';

/** What the run page derives from the run's public events: pure, so it is tested without a browser. */
export interface StageSpan {
  stage: string;
  iteration: number;
  at: string;
  /** Until the next stage entry or the run's end; absent while the stage is current. */
  until?: string;
}

export interface ToolCallView {
  callId: string;
  tool: string;
  stage?: string;
  arguments?: unknown;
  state: 'requested' | 'completed' | 'failed' | 'rejected' | 'interrupted';
  output?: string;
  truncated?: boolean;
  durationMs?: number;
  reason?: string;
  changes: Omit<DiffEntry, 'callId' | 'tool'>[];
}

export interface ReasoningView {
  requestId: string;
  at: string;
  outcome: Record<string, unknown>;
}

const END = new Set(['RunCompleted', 'RunFailed', 'RunCancelled']);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function stageSpans(events: readonly TimelineEvent[]): StageSpan[] {
  const spans: StageSpan[] = [];
  for (const event of events) {
    const open = spans[spans.length - 1];
    if (event.type === 'StageEntered') {
      if (open && !open.until) open.until = event.at;
      spans.push({ stage: str(event.data.stage) ?? '?', iteration: Number(event.data.iteration ?? 0), at: event.at });
    } else if (END.has(event.type) && open && !open.until) open.until = event.at;
    else if (event.type === 'RunContinued' && open) delete open.until;
  }
  return spans;
}

export function toolCalls(events: readonly TimelineEvent[]): ToolCallView[] {
  const calls = new Map<string, ToolCallView>();
  const of = (data: Record<string, unknown>): ToolCallView => {
    const callId = str(data.callId) ?? '?';
    let call = calls.get(callId);
    if (!call) {
      call = { callId, tool: str(data.tool) ?? '?', state: 'requested', changes: [] };
      calls.set(callId, call);
    }
    return call;
  };
  for (const event of events) {
    const data = event.data;
    if (event.type === 'ToolCallRequested') Object.assign(of(data), { arguments: data.arguments, stage: str(data.stage) ?? event.stage });
    else if (event.type === 'ToolCallCompleted')
      Object.assign(of(data), {
        state: data.interrupted ? 'interrupted' : data.ok ? 'completed' : 'failed',
        output: str(data.output),
        truncated: Boolean(data.truncated),
        durationMs: typeof data.durationMs === 'number' ? data.durationMs : undefined,
        changes: Array.isArray(data.changes) ? (data.changes as ToolCallView['changes']) : [],
      });
    else if (event.type === 'ToolCallRejected')
      Object.assign(of(data), { state: 'rejected', reason: `${str(data.code) ?? ''}: ${str(data.reason) ?? ''}` });
  }
  return [...calls.values()];
}

export function reasoningOutcomes(events: readonly TimelineEvent[]): ReasoningView[] {
  return events
    .filter((event) => event.type === 'ReasoningRecorded' && event.data.outcome && typeof event.data.outcome === 'object')
    .map((event) => ({
      requestId: str(event.data.requestId) ?? '?',
      at: event.at,
      outcome: event.data.outcome as Record<string, unknown>,
    }));
}

/** A live event added to the timeline once: the stream and the first read may overlap at their seam. */
export function withEvent(events: readonly TimelineEvent[], event: TimelineEvent): TimelineEvent[] {
  const last = events[events.length - 1];
  if (last && BigInt(event.position) <= BigInt(last.position)) return events as TimelineEvent[];
  return [...events, event];
}
