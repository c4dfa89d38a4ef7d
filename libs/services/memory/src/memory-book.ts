import {
  EventOf,
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
import { stableEventId } from '@stagecraft/event-store';
import type { EventWriter, NewEvent } from '@stagecraft/event-store';
import {
  MemoriesView,
  ScopeMemories,
  entryOf,
  fuseRankings,
  liveMemories,
  memoriesModel,
  memoryOf,
  rankMemories,
} from '@stagecraft/read-models';
import type { Clock } from '@stagecraft/service-shell';
import { planReflection, reflectionText } from './reflect';
import type { MemoryViews } from './views/memory-views';
import { cosine } from '@stagecraft/index';
import type { Embedder } from '@stagecraft/model-gateway';

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
    const { state } = await this.ports.views.read(memoriesModel, this.written > 0n ? this.written.toString() : undefined);
    return entryOf((state as MemoriesView).scopes, scope);
  }

  private async append(scope: string, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const { position } = await this.ports.store.appendToStream(streams.memory(scope), events, { expectedRevision: 'any' });
    if (position > this.written) this.written = position;
  }

  private metadata(link: Partial<EventMetadata>): EventMetadata {
    return { ...link, occurredAt: this.ports.clock().toISOString() };
  }

  async retain(request: ScopedRetain, link: Partial<EventMetadata>): Promise<MemoryRetainReply> {
    const memoryId = request.memoryId ?? this.ports.newId();
    if (entryOf((await this.scope(request.scope))?.memories ?? {}, memoryId)) return { memoryId, retained: false };
    const event: EventOf<'MemoryRetained'> = {
      type: 'MemoryRetained',
      data: {
        memoryId,
        scope: request.scope,
        tier: request.tier,
        content: request.content,
        tags: request.tags,
        ...(request.source ? { source: request.source } : {}),
      },
      metadata: this.metadata({ ...link, ...(request.source?.runId ? { runId: request.source.runId } : {}) }),
    };
    await this.append(request.scope, [{ id: stableEventId(`memory:${request.scope}:${memoryId}`), ...event }]);
    if (request.tier === 'run_outcome') await this.boundRunOutcomes(request.scope, link);
    return { memoryId, retained: true };
  }

  /** Retracts the oldest run outcomes past the limit, each with its reason. */
  private async boundRunOutcomes(scope: string, link: Partial<EventMetadata>): Promise<void> {
    const outcomes = liveMemories(await this.scope(scope), 'run_outcome');
    const excess = outcomes.slice(0, Math.max(0, outcomes.length - this.ports.runOutcomeLimit));
    await this.append(
      scope,
      excess.map((m) => ({
        id: stableEventId(`memory:${scope}:${m.memoryId}:retracted`),
        type: 'MemoryRetracted',
        data: { memoryId: m.memoryId, scope, reason: `run outcomes keep the latest ${this.ports.runOutcomeLimit}; this was the oldest` },
        metadata: this.metadata(link),
      })),
    );
  }

  async recall(request: ScopedRecall): Promise<MemoryRecallReply> {
    const scope = await this.scope(request.scope);
    const lexical = rankMemories(scope, request.query, { tier: request.tier, limit: request.limit });
    const embedder = this.ports.embedder;
    if (!embedder || !scope) return { memories: lexical };
    const candidates = liveMemories(scope, request.tier);
    if (candidates.length === 0) return { memories: [] };
    let semantic: string[];
    try {
      semantic = await this.semanticRanking(
        embedder,
        request.query,
        candidates.map((m) => memoryOf(scope.scope, m)),
      );
    } catch (error) {
      this.ports.onEmbeddingError?.(error);
      return { memories: lexical };
    }
    const byId = new Map(candidates.map((m) => [m.memoryId, m]));
    const fused = fuseRankings([lexical.map((m) => m.memoryId), semantic.slice(0, Math.max(request.limit, 10))], request.limit);
    return { memories: fused.map(({ memoryId, score }) => ({ ...memoryOf(scope.scope, byId.get(memoryId)!), score })) };
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
    const scope = await this.scope(request.scope);
    const plan = planReflection(scope, request.query);
    await this.append(request.scope, [
      ...plan.links.map((l) => ({
        id: stableEventId(`memory:${request.scope}:link:${l.from}:${l.to}:${l.kind}`),
        type: 'MemoryLinked',
        data: { scope: request.scope, ...l },
        metadata: this.metadata(link),
      })),
      ...plan.links
        .filter((l) => l.kind === 'duplicate')
        .map((l) => ({
          id: stableEventId(`memory:${request.scope}:${l.from}:retracted`),
          type: 'MemoryRetracted',
          data: { memoryId: l.from, scope: request.scope, reason: `merged into ${l.to} by reflection: a near-duplicate` },
          metadata: this.metadata(link),
        })),
    ]);
    return { reflection: reflectionText(plan, request.scope, request.query), memoryIds: plan.memories.map((m) => m.memoryId) };
  }
}
