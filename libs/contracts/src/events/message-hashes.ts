import { z } from 'zod';
import { Sha256 } from './shared';

/**
 * One entry of `ModelRequested.messageHashes`: a body's hash, or `[from, to]`, the hashes at positions
 * `from` to `to - 1` of the run's previous request. A request repeats most of the one before it, so the
 * list stays short however long the run grows (docs/decisions/0018). Logs written before hold hashes only.
 */
export const MessageHashEntry = z.union([Sha256, z.tuple([z.number().int().min(0), z.number().int().min(0)])]);
export type MessageHashEntry = z.infer<typeof MessageHashEntry>;

/** The hashes of every message of a request, in order, from its recorded entries and the previous request's hashes. */
export function expandMessageHashes(entries: readonly MessageHashEntry[], previous: readonly string[]): string[] {
  return entries.flatMap((entry) => {
    if (typeof entry === 'string') return [entry];
    const [from, to] = entry;
    if (from >= to || to > previous.length)
      throw new RangeError(`message hashes [${from}, ${to}] are not within the previous request's ${previous.length}`);
    return previous.slice(from, to);
  });
}

/** The entries that record `hashes`: each stretch the previous request also sent, in the same order, as a range of it. */
export function compactMessageHashes(hashes: readonly string[], previous: readonly string[]): MessageHashEntry[] {
  const at = new Map<string, number[]>();
  previous.forEach((hash, i) => at.set(hash, [...(at.get(hash) ?? []), i]));
  const entries: MessageHashEntry[] = [];
  for (let i = 0; i < hashes.length; ) {
    let best = { from: -1, length: 0 };
    for (const from of at.get(hashes[i]) ?? []) {
      let length = 1;
      while (i + length < hashes.length && previous[from + length] === hashes[i + length]) length += 1;
      if (length > best.length) best = { from, length };
    }
    if (best.length === 0) {
      entries.push(hashes[i]);
      i += 1;
    } else {
      entries.push([best.from, best.from + best.length]);
      i += best.length;
    }
  }
  return entries;
}
