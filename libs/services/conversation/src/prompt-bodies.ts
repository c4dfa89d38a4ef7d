import { ChatMessage, EventMetadata, Stage, expandMessageHashes, promptEvents, runEvents, streams } from '@stagecraft/contracts';
import { ConcurrencyError, EventReader, EventWriter, readEvents } from '@stagecraft/event-store';
import { piecesNamedBy, restoreMessages, storedBodiesOf } from '@stagecraft/model-gateway';
import { messagesWithOutputs, toChatMessage } from '@stagecraft/run';
import { stableEventId } from '@stagecraft/event-store';
import { earlierTurns } from './run-log';

/** Hashes a process remembers as stored; past this, the oldest are forgotten (and looked up again if they recur). */
const MAX_REMEMBERED = 100_000;

/**
 * Prompt bodies, each stored once per store in a stream of its own, `promptbody-<hash>`, as one
 * `PromptBodyStored` whose id derives from the hash (docs/decisions/0018). The process remembers the
 * hashes it knows are stored; any other is looked up first (after a restart, the store is the memory).
 * The append expects no stream: a second writer, or a retry the store no longer recognises, finds the
 * body there already and leaves the one event the first wrote.
 */
export class PromptBodyStore {
  private readonly stored = new Set<string>();

  constructor(private readonly store: EventReader & EventWriter) {}

  /** Stores every body not stored yet; resolves once each of them is in the store. The number written. */
  async storeAll(bodies: Readonly<Record<string, string>>, metadata: EventMetadata): Promise<number> {
    const missing = Object.entries(bodies).filter(([hash]) => !this.stored.has(hash));
    const written = await Promise.all(missing.map(([hash, body]) => this.storeOne(hash, body, metadata)));
    return written.filter(Boolean).length;
  }

  private async storeOne(hash: string, body: string, metadata: EventMetadata): Promise<boolean> {
    const stream = streams.promptBody(hash);
    let wrote = false;
    if ((await this.store.readStream(stream, { maxCount: 1 })).length === 0) {
      const event = { id: stableEventId(stream), type: 'PromptBodyStored', data: { hash, body }, metadata };
      try {
        await this.store.appendToStream(stream, [event], { expectedRevision: 'no_stream' });
        wrote = true;
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
    this.remember(hash);
    return wrote;
  }

  private remember(hash: string): void {
    if (this.stored.size >= MAX_REMEMBERED) this.stored.delete(this.stored.values().next().value as string);
    this.stored.add(hash);
  }
}

const perStore = new WeakMap<object, PromptBodyStore>();

/** The body store of an event store: one per store in a process, so what it remembers is shared by every run. */
export function promptBodiesOf(store: EventReader & EventWriter): PromptBodyStore {
  let bodies = perStore.get(store);
  if (!bodies) {
    bodies = new PromptBodyStore(store);
    perStore.set(store, bodies);
  }
  return bodies;
}

/** A recorded model request with the messages it sent, rebuilt from the log. */
export interface RestoredRequest {
  requestId: string;
  stage: Stage;
  /** Every message's hash, in order, with the ranges of the previous request expanded. */
  messageHashes: string[];
  messages: ChatMessage[];
}

/**
 * Every model request a run recorded, with the exact messages it sent. Bodies come from where the log
 * keeps them: `promptbody-*` streams, `newBodies` in logs written before those streams, and the
 * messages the log holds itself (the run's own, and its conversation's turns through `historyThrough`).
 */
export async function restoreRequests(reader: EventReader, runId: string): Promise<RestoredRequest[]> {
  const events = await readEvents(reader, streams.run(runId), runEvents);
  const bodies = new Map<string, string>();
  const held = messagesWithOutputs(events).flatMap((e) => (e.type === 'MessageAppended' ? [toChatMessage(e.data)] : []));
  const started = events.find((e) => e.type === 'RunStarted');
  if (started?.type === 'RunStarted') {
    const { conversationId, historyThrough } = started.data;
    held.unshift(...(await earlierTurns(reader, conversationId, historyThrough)).messages.map((m) => m.message));
  }
  for (const [hash, body] of storedBodiesOf(held)) bodies.set(hash, body);
  const restored: RestoredRequest[] = [];
  let previous: string[] = [];
  for (const event of events) {
    if (event.type !== 'ModelRequested') continue;
    const { requestId, stage, messageHashes, newBodies } = event.data;
    for (const [hash, body] of Object.entries(newBodies ?? {})) bodies.set(hash, body);
    const hashes = expandMessageHashes(messageHashes, previous);
    await readBodies(reader, hashes, bodies);
    await readBodies(
      reader,
      hashes.flatMap((hash) => piecesNamedBy(bodies.get(hash) ?? '{}')),
      bodies,
    );
    restored.push({ requestId, stage, messageHashes: hashes, messages: restoreMessages(hashes, bodies) });
    previous = hashes;
  }
  return restored;
}

/** Adds the stored bodies of `hashes` that `bodies` lacks; a hash with no body stays missing. */
async function readBodies(reader: EventReader, hashes: readonly string[], bodies: Map<string, string>): Promise<void> {
  const missing = [...new Set(hashes)].filter((hash) => !bodies.has(hash));
  const read = await Promise.all(missing.map((hash) => readEvents(reader, streams.promptBody(hash), promptEvents, { maxCount: 1 })));
  for (const [event] of read) if (event) bodies.set(event.data.hash, event.data.body);
}
