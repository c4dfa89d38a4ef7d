import { EventData, MemorySource, MemoryTier } from '@stagecraft/contracts';
import { Decider, Decision } from '@stagecraft/decider';
import { ScopeMemories, entryOf, evolveScope, liveMemories } from '@stagecraft/read-models';
import { planReflection } from '../reflect/reflection';

/** A `memory-<scope>` event as the decider chooses it; the book adds its stable id and metadata. */
export type MemoryDecided =
  | { type: 'MemoryRetained'; data: EventData<'MemoryRetained'> }
  | { type: 'MemoryRetracted'; data: EventData<'MemoryRetracted'> }
  | { type: 'MemoryLinked'; data: EventData<'MemoryLinked'> };

/**
 * One scope as the memories view holds it, and the runs the view saw ending `DONE`: a memory
 * retained inside any other run is provisional (kept, never counted) until its run ends `DONE`,
 * which is the view's to see, not a write of this decider.
 */
export interface MemoryScopeState {
  scope: ScopeMemories;
  doneRuns: Readonly<Record<string, true>>;
}

export type MemoryInput =
  | { type: 'Retain'; memoryId: string; scope: string; tier: MemoryTier; content: string; tags: string[]; source?: MemorySource }
  /** Link the memories bearing on the query, merging near-duplicates. */
  | { type: 'Reflect'; scope: string; query: string };

export interface MemoryContext {
  /** Run outcomes kept per scope; older ones are retracted, oldest first. */
  runOutcomeLimit: number;
}

/** A scope nothing was retained in yet, as the view starts one. */
export const emptyScope = (scope: string): ScopeMemories => ({
  scope,
  memories: {},
  live: [],
  documentFrequency: {},
  totalLength: 0,
  links: [],
  position: '0',
});

function retain(input: Extract<MemoryInput, { type: 'Retain' }>, state: MemoryScopeState, { runOutcomeLimit }: MemoryContext) {
  // A memory id names one memory: retaining it again (a retried call, a replayed run) retains nothing.
  if (entryOf(state.scope.memories, input.memoryId)) return [];
  const { memoryId, scope, tier, content, tags, source } = input;
  const decision = new Decision<MemoryScopeState, MemoryDecided>(state, memoryDecider.evolve);
  decision.add({ type: 'MemoryRetained', data: { memoryId, scope, tier, content, tags, ...(source ? { source } : {}) } });
  if (tier !== 'run_outcome') return decision.events;
  const outcomes = liveMemories(decision.state.scope, 'run_outcome');
  for (const oldest of outcomes.slice(0, Math.max(0, outcomes.length - runOutcomeLimit))) {
    const reason = `run outcomes keep the latest ${runOutcomeLimit}; this was the oldest`;
    decision.add({ type: 'MemoryRetracted', data: { memoryId: oldest.memoryId, scope, reason } });
  }
  return decision.events;
}

function reflect({ scope, query }: Extract<MemoryInput, { type: 'Reflect' }>, state: MemoryScopeState): MemoryDecided[] {
  const { links } = planReflection(state.scope, query);
  return [
    ...links.map((link): MemoryDecided => ({ type: 'MemoryLinked', data: { scope, ...link } })),
    ...links
      .filter((link) => link.kind === 'duplicate')
      .map((link): MemoryDecided => ({
        type: 'MemoryRetracted',
        data: { memoryId: link.from, scope, reason: `merged into ${link.to} by reflection: a near-duplicate` },
      })),
  ];
}

/**
 * The writes of one memory scope: retain (bounding the run-outcome tier) and reflect. Its state is
 * the memories view's, folded by the view's own `evolveScope`, so a rule reads what recall will read.
 */
export const memoryDecider: Decider<MemoryScopeState, MemoryInput, MemoryDecided, MemoryContext> = {
  initialState: () => ({ scope: emptyScope(''), doneRuns: {} }),

  evolve(state, event) {
    const runId = event.type === 'MemoryRetained' ? event.data.source?.runId : undefined;
    const provisional = runId !== undefined && !entryOf(state.doneRuns, runId);
    // Not yet written, so without a position of its own: it keeps the scope's.
    const scope = evolveScope(state.scope, { ...event, position: BigInt(state.scope.position) }, provisional);
    return scope === state.scope ? state : { ...state, scope };
  },

  decide(input, state, context) {
    switch (input.type) {
      case 'Retain':
        return retain(input, state, context);
      case 'Reflect':
        return reflect(input, state);
      default: {
        const unreachable: never = input;
        return unreachable;
      }
    }
  },
};
