import { streams } from '@stagecraft/contracts';
import type { EventData, EventMetadata, EventType, Projection, ReasoningOutcome, RecordedEvent, RunEventType } from '@stagecraft/contracts';

export const AT = '2026-11-01T10:00:00.000Z';
/** `AT` plus `seconds`. */
export const at = (seconds: number): string => new Date(Date.parse(AT) + seconds * 1000).toISOString();

/** A log as a store would hold it: positions from 1 in append order, revisions per stream from 0. */
export class Log {
  readonly events: RecordedEvent[] = [];
  private readonly revisions = new Map<string, bigint>();

  append<T extends EventType>(streamId: string, type: T, data: EventData<T>, metadata: Partial<EventMetadata> = {}): RecordedEvent {
    const revision = this.revisions.get(streamId) ?? 0n;
    this.revisions.set(streamId, revision + 1n);
    const event = {
      id: `e${this.events.length + 1}`,
      streamId,
      revision,
      position: BigInt(this.events.length + 1),
      type,
      data,
      metadata: { correlationId: 'k1', occurredAt: AT, ...metadata },
      recordedAt: metadata.occurredAt ?? AT,
    };
    this.events.push(event);
    return event;
  }

  /** Appends to `run-<runId>` with the run's metadata; `occurredAt` defaults to `AT`. */
  run(runId: string, conversationId = 'c1') {
    return <T extends RunEventType>(type: T, data: EventData<T>, occurredAt = AT, contextId?: string) =>
      this.append(streams.run(runId), type, data, { runId, conversationId, occurredAt, ...(contextId ? { contextId } : {}) });
  }
}

/** Given these events, the view the model folds (only the types it handles reach `evolve`, as in the runner). */
export function fold<S>(model: Projection<S>, events: readonly RecordedEvent[], from: S = model.initialState()): S {
  const handles = new Set(model.handles);
  return events.reduce((view, event) => (handles.has(event.type) ? model.evolve(view, event) : view), from);
}

/** The same fold, stopped halfway and resumed from the view as a checkpoint stores it (JSON). */
export function foldThroughCheckpoint<S>(model: Projection<S>, events: readonly RecordedEvent[], at = Math.floor(events.length / 2)): S {
  const saved = JSON.parse(JSON.stringify(fold(model, events.slice(0, at)))) as S;
  return fold(model, events.slice(at), saved);
}

export const outcome = (nextAction: string, delivery: ReasoningOutcome['delivery_state'] = 'NEEDS_WORK'): ReasoningOutcome => ({
  plan_delta: 'none',
  next_action: nextAction,
  known_risks: 'none',
  delivery_state: delivery,
  notes: [],
});

export const runStarted = (runId: string, conversationId = 'c1'): EventData<'RunStarted'> => ({
  runId,
  conversationId,
  userMode: 'agent',
  reasoningEnabled: true,
  userInput: 'fix the failing test',
  projectRoot: '/work/p',
});

/** A `StageEntered` whose policy is only what the read models look at: its stage. */
export const stageEntered = (stage: EventData<'StageEntered'>['stage'], contextId: string, iteration = 0): EventData<'StageEntered'> => ({
  stage,
  iteration,
  contextId,
  policy: {
    userMode: 'agent',
    reasoningEnabled: true,
    stage,
    delegation: { depth: 0, chain: [] },
    tools: [],
    prompts: [],
    reasoning: { rule: 'micro', required: true },
    toolLoop: false,
    memory: [],
  },
});

export const usage = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

export const modelRequested = (requestId: string, model: string): EventData<'ModelRequested'> => ({
  requestId,
  stage: 'act',
  model,
  toolNames: [],
  messageCount: 2,
  tokenEstimate: 100,
  promptHash: 'a'.repeat(64),
  messageHashes: [],
  newBodies: {},
});

export const modelResponded = (requestId: string, tokens?: ReturnType<typeof usage>): EventData<'ModelResponded'> => ({
  requestId,
  content: 'ok',
  toolCalls: [],
  ...(tokens ? { usage: tokens } : {}),
  latencyMs: 5,
  finishReason: 'stop',
});
