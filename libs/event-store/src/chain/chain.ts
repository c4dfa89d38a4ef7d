import { createHash } from 'node:crypto';
import { StagecraftError } from '@stagecraft/contracts';
import type { NewEvent, RecordedEvent } from '../port';

/**
 * An event's link in its stream's hash chain, kept in `metadata.chain` (docs/decisions/0037): `prev`
 * is the hash of the event before it (for the first event, `streamGenesis(stream)`), `hash` the hash
 * of `prev` and the event's content. Editing, removing or moving one event breaks the link after it.
 */
export interface ChainLink {
  prev: string;
  hash: string;
}

/**
 * An event as the chain hashes it: its id and type, and its data and metadata (without `chain`) as
 * the JSON text it is stored as. JSON text and not canonical JSON: the stores write this text anyway,
 * and a value read back and written again gives the same text, so nothing is serialised twice.
 */
export interface ChainContent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

/** Full sha256, as base64url: 43 characters where hex takes 64, on every event of the log. */
const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64url');

/** The `prev` of a stream's first event: moving an event into another stream breaks its link. */
export const streamGenesis = (stream: string): string => sha256(`stagecraft stream\n${JSON.stringify(stream)}`);

/** JSON text never holds a raw newline, so the parts cannot be shifted into one another. */
export const linkHash = (prev: string, content: ChainContent): string =>
  sha256(`${JSON.stringify([prev, content.id, content.type])}\n${content.data}\n${content.metadata}`);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The metadata without its chain field; `null` and absent metadata count as `{}` (they are stored as `{ chain }`). */
export function unchainedMetadata(metadata: unknown): Record<string, unknown> {
  if (metadata === undefined || metadata === null) return {};
  if (!isObject(metadata)) throw new StagecraftError('VALIDATION', 'event metadata must be a JSON object', []);
  if (!('chain' in metadata)) return metadata;
  const { chain: _dropped, ...rest } = metadata;
  return rest;
}

/** What the chain covers of an event about to be appended: a `chain` it already carries (a copied event) is replaced. */
export function chainContent(event: NewEvent): ChainContent {
  return {
    id: event.id,
    type: event.type,
    data: JSON.stringify(event.data ?? null),
    metadata: JSON.stringify(unchainedMetadata(event.metadata)),
  };
}

/** The stored metadata text: the chain goes last, so removing it gives back exactly the hashed text. */
export function chainedMetadataText(content: ChainContent, link: ChainLink): string {
  const chain = `"chain":${JSON.stringify(link)}`;
  return content.metadata === '{}' ? `{${chain}}` : `${content.metadata.slice(0, -1)},${chain}}`;
}

export interface ChainedBatch {
  links: ChainLink[];
  /** Each event's stored metadata text (with its chain). */
  metadata: string[];
}

/** Links a batch onto `prev`, the hash of the stream's last event, or `null` at the stream's start (or after an unchained head). */
export function chainBatch(stream: string, prev: string | null, contents: readonly ChainContent[]): ChainedBatch {
  let last = prev ?? streamGenesis(stream);
  const links: ChainLink[] = [];
  const metadata: string[] = [];
  for (const content of contents) {
    const link = { prev: last, hash: linkHash(last, content) };
    links.push(link);
    metadata.push(chainedMetadataText(content, link));
    last = link.hash;
  }
  return { links, metadata };
}

/** The events as appended, each metadata object carrying its link: what in-process subscribers are handed. */
export function chainedEvents(events: readonly NewEvent[], links: readonly ChainLink[]): NewEvent[] {
  return events.map((e, i) => ({ ...e, data: e.data ?? null, metadata: { ...unchainedMetadata(e.metadata), chain: links[i] } }));
}

/** The link a stored event carries, or `null` when it has none (written before streams were chained) or it is malformed. */
export function chainOf(metadata: unknown): ChainLink | null {
  if (!isObject(metadata) || !isObject(metadata['chain'])) return null;
  const { prev, hash } = metadata['chain'];
  return typeof prev === 'string' && typeof hash === 'string' ? { prev, hash } : null;
}

/** The content of a stored event, as it was hashed when appended. */
export function recordedContent(event: Pick<RecordedEvent, 'id' | 'type' | 'data' | 'metadata'>): ChainContent {
  const metadata = isObject(event.metadata) ? event.metadata : {};
  const { chain: _chain, ...rest } = metadata;
  return { id: event.id, type: event.type, data: JSON.stringify(event.data ?? null), metadata: JSON.stringify(rest) };
}
