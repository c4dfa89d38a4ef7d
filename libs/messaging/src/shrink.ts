import { z } from 'zod';

/** How much of a cut string a live subscriber still sees. */
const HEAD_CHARS = 2_048;

interface StringLeaf {
  holder: Record<string | number, unknown>;
  key: string | number;
  original: string;
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Keeps about `keep` characters of `text`, never half a surrogate pair, and says how many bytes went. */
function cut(text: string, keep: number, note: string): string {
  const end = keep > 0 && /[\uD800-\uDBFF]/.test(text[keep - 1]) ? keep - 1 : keep;
  return `${text.slice(0, end)}[… ${Buffer.byteLength(text.slice(end), 'utf8')} bytes cut; ${note}]`;
}

/** Every string value in a JSON tree (object keys aside), largest first. Iterative: the tree may be deep. */
function stringLeaves(root: unknown): StringLeaf[] {
  const leaves: StringLeaf[] = [];
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    const holder = node as Record<string | number, unknown>;
    for (const [key, value] of Object.entries(holder)) {
      const at = Array.isArray(holder) ? Number(key) : key;
      if (typeof value === 'string') leaves.push({ holder, key: at, original: value });
      else pending.push(value);
    }
  }
  return leaves.sort((a, b) => b.original.length - a.original.length);
}

/**
 * The JSON of `value` within `maxBytes`: as it is when it fits, otherwise with its largest strings cut
 * (each to a head and a marker naming the bytes cut and `note`), and only if the result still passes
 * `schema`, so a subscriber parsing it with the contract never fails. Null when no cut makes it fit.
 */
export function shrinkToFit(value: unknown, schema: z.ZodType, maxBytes: number, note: string): string | null {
  const text = JSON.stringify(value);
  let size = Buffer.byteLength(text, 'utf8');
  if (size <= maxBytes) return text;
  const copy: unknown = JSON.parse(text);
  const leaves = stringLeaves(copy);
  // First keep a readable head of each cut string; only if that is not enough, keep the markers alone.
  for (const keep of [HEAD_CHARS, 0]) {
    for (const { holder, key, original } of leaves) {
      if (size <= maxBytes) break;
      const current = holder[key] as string;
      const shorter = cut(original, keep, note);
      if (shorter.length >= current.length) continue;
      size += jsonBytes(shorter) - jsonBytes(current);
      holder[key] = shorter;
    }
  }
  if (size > maxBytes || !schema.safeParse(copy).success) return null;
  return JSON.stringify(copy);
}
