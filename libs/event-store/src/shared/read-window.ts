import type { ReadStreamOptions } from '../port';

/** Revision range [first, last] (inclusive) and order that a readStream call asks for, given the stream's last revision. */
export function streamWindow(
  options: ReadStreamOptions | undefined,
  lastRevision: bigint,
): { from: bigint; to: bigint; backwards: boolean } | null {
  const backwards = options?.direction === 'backwards';
  const count = options?.maxCount ?? Number.MAX_SAFE_INTEGER;
  if (lastRevision < 0n || count <= 0) return null;
  if (backwards) {
    const to = options?.fromRevision === undefined || options.fromRevision > lastRevision ? lastRevision : options.fromRevision;
    const from = to - BigInt(count) + 1n;
    return to < 0n ? null : { from: from < 0n ? 0n : from, to, backwards };
  }
  const from = options?.fromRevision ?? 0n;
  const to = from + BigInt(count) - 1n;
  return from > lastRevision ? null : { from, to: to > lastRevision ? lastRevision : to, backwards };
}
