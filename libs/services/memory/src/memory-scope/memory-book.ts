import {
  EventMetadata,
  Memory,
  MemoryRecallReply,
  MemoryRecallRequest,
  MemoryReflectReply,
  MemoryReflectRequest,
  MemoryRetainReply,
  MemoryRetainRequest,
  streams,
} from '@stagecraft/contracts';
import { appendDecided, stableEventId } from '@stagecraft/event-store';
import type { EventWriter } from '@stagecraft/event-store';
import { MemoriesView, ScopeMemories, entryOf, liveMemories, memoriesModel, memoryOf, recallRanking } from '@stagecraft/read-models';
import type { RequestContext } from '@stagecraft/messaging';
import type { Clock } from '@stagecraft/service-shell';
import { cosine } from '@stagecraft/index';
import type { Embedder } from '@stagecraft/model-gateway';
import { MemoryDecided, MemoryInput, MemoryScopeState, emptyScope, memoryDecider } from './memory.decider';
import { planReflection, reflectionText } from '../reflect/reflection';
import type { MemoryViews } from '../views/memory-views';

/** What links a write to the request that asked for it, in its events' metadata. */
export const linkOf = (context: RequestContext): Partial<EventMetadata> => ({
  correlationId: context.correlationId,
  causationId: context.causationId,
});

/** The requests as the book takes them: in a scope, which the caller derived from the project and checked. */
export type ScopedRetain = Omit<MemoryRetainRequest, 'projectRoot'> & { scope: string };
export type ScopedRecall = Omit<MemoryRecallRequest, 'projectRoot'> & { scope: string };
export type ScopedReflect = Omit<MemoryReflectRequest, 'projectRoot'> & { scope: string };

/** Recent run outcomes kept per scope; older ones are retracted, oldest first. */
export const DEFAULT_RUN_OUTCOME_LIMIT = 50;

export type { Embedder };

export interface MemoryBookPorts {
  store: EventWriter;
  views: MemoryViews;
  clock: Clock;
  newId: () => string;
  runOutcomeLimit: number;
  embedder?: Embedder;
  /** Told when the embeddings endpoint fails; recall then answers with the lexical rank alone. */
  onEmbeddingError?: (error: unknown) => void;
}

/**
 * The memory service's one writer and reader of memories. Writes go to `memory-<scope>` with stable
 * event ids; reads come from the `memory-memories` view, at least as far as this service's own latest
 * append, so a recall right after a retain finds it.
 */
export class MemoryBook {
  private written = 0n;
  /** Vectors by memory id (a memory's content never changes), and by query for the latest few. */
  private readonly vectors = new Map<string, number[]>();

  constructor(private readonly ports: MemoryBookPorts) {}

  async scope(scope: string): Promise<ScopeMemories | undefined> {
    return entryOf((await this.view()).scopes, scope);
  }

  private async view(): Promise<MemoriesView> {
    const { state } = await this.ports.views.read(memoriesModel, this.written > 0n ? this.written.toString() : undefined);
    return state as MemoriesView;
  }

  /** One scope as the view holds it, at least as far as this book's own latest append. */
  private async stateOf(scope: string): Promise<MemoryScopeState> {
    const view = await this.view();
    return { scope: entryOf(view.scopes, scope) ?? emptyScope(scope), doneRuns: view.doneRuns ?? {} };
  }

  /** Decides on one scope and appends what was decided, as one commit. */
  private async decide(state: MemoryScopeState, input: MemoryInput, link: Partial<EventMetadata>): Promise<readonly MemoryDecided[]> {
    const events = memoryDecider.decide(input, state, { runOutcomeLimit: this.ports.runOutcomeLimit });
    const occurredAt = this.ports.clock().toISOString();
    // Writes are idempotent by their stable ids, not ordered by revision: any revision will do.
    await appendDecided(this.positioned, streams.memory(input.scope), events, {
      what: `memory scope ${input.scope}`,
      expectedRevision: 'any',
      newId: (event) => stableEventId(stableKeyOf(event)),
      metadata: (event) => {
        const runId = event.type === 'MemoryRetained' ? event.data.source?.runId : undefined;
        return { ...link, ...(runId ? { runId } : {}), occurredAt };
      },
    });
    return events;
  }

  /** The store, noting the position of this book's latest append: a read right after it waits for the view to get there. */
  private readonly positioned: Pick<EventWriter, 'appendToStream'> = {
    appendToStream: async (stream, events, options) => {
      const result = await this.ports.store.appendToStream(stream, events, options);
      if (result.position > this.written) this.written = result.position;
      return result;
    },
  };

  async retain({ scope, tier, content, tags, source, ...request }: ScopedRetain, link: Partial<EventMetadata>): Promise<MemoryRetainReply> {
    const memoryId = request.memoryId ?? this.ports.newId();
    const input: MemoryInput = { type: 'Retain', memoryId, scope, tier, content, tags, ...(source ? { source } : {}) };
    const events = await this.decide(await this.stateOf(scope), input, link);
    return { memoryId, retained: events.length > 0 };
  }

  /**
   * The memories recall answers (docs/decisions/0058): the lexical ranking, the newest run outcomes
   * whatever the words and, with an embedder, the semantic one, taken in turns. An embedder that fails
   * leaves the other two.
   */
  async recall(request: ScopedRecall): Promise<MemoryRecallReply> {
    const scope = await this.scope(request.scope);
    const options = { tier: request.tier, limit: request.limit };
    const embedder = this.ports.embedder;
    const candidates = liveMemories(scope, request.tier);
    if (!embedder || !scope || candidates.length === 0) return { memories: recallRanking(scope, request.query, options) };
    try {
      const semantic = await this.semanticRanking(
        embedder,
        request.query,
        candidates.map((m) => memoryOf(scope.scope, m)),
      );
      return { memories: recallRanking(scope, request.query, { ...options, semantic: semantic.slice(0, Math.max(request.limit, 10)) }) };
    } catch (error) {
      this.ports.onEmbeddingError?.(error);
      return { memories: recallRanking(scope, request.query, options) };
    }
  }

  private async semanticRanking(embedder: Embedder, query: string, memories: Memory[]): Promise<string[]> {
    const missing = memories.filter((m) => !this.vectors.has(m.memoryId));
    const [queryVector, ...vectors] = await embedder.embed([query, ...missing.map((m) => m.content)]);
    missing.forEach((m, i) => this.vectors.set(m.memoryId, vectors[i]));
    return memories
      .map((m, index) => ({ id: m.memoryId, index, score: cosine(queryVector, this.vectors.get(m.memoryId) ?? []) }))
      .sort((a, b) => b.score - a.score || b.index - a.index)
      .map((m) => m.id);
  }

  /** Links the memories bearing on the query (merging near-duplicates), records it as events, and says what it did. */
  async reflect(request: ScopedReflect, link: Partial<EventMetadata>): Promise<MemoryReflectReply> {
    const state = await this.stateOf(request.scope);
    const plan = planReflection(state.scope, request.query);
    await this.decide(state, { type: 'Reflect', scope: request.scope, query: request.query }, link);
    return { reflection: reflectionText(plan, request.scope, request.query), memoryIds: plan.memories.map((m) => m.memoryId) };
  }
}

/** What names an event in its scope: the same write, retried or replayed, is stored once. */
function stableKeyOf(event: MemoryDecided): string {
  const { scope } = event.data;
  switch (event.type) {
    case 'MemoryRetained':
      return `memory:${scope}:${event.data.memoryId}`;
    case 'MemoryRetracted':
      return `memory:${scope}:${event.data.memoryId}:retracted`;
    case 'MemoryLinked':
      return `memory:${scope}:link:${event.data.from}:${event.data.to}:${event.data.kind}`;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
