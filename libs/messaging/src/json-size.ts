/**
 * The UTF-8 size of `JSON.stringify(value)` when it is over `limit`, or null when it fits. Exact, yet
 * usually cheap: a walk that never allocates finds an upper bound first, and only a value whose bound
 * is over the limit is serialised to be measured. Used by the in-process value lane, which carries no
 * text but must refuse what the text lanes refuse (docs/decisions/0012-transport-limits.md).
 */
export function jsonSizeIfOver(value: unknown, limit: number): number | null {
  if (jsonUpperBound(value, limit) <= limit) return null;
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  return bytes > limit ? bytes : null;
}

// No JSON number is longer than this ("-1.7976931348623157e+308" is 24 characters).
const NUMBER_BOUND = 25;
// A UTF-16 unit becomes at most 6 bytes of JSON (\uXXXX for controls and lone surrogates; 3 for other
// BMP characters). Scanning for the characters that need escaping would be exact, but costs as much as
// the serialisation it would save: measured, 20 µs to scan a 9 KB prompt, 0.5 µs to bound it.
const stringBound = (text: string) => text.length * 6 + 2;

/** An upper bound of the serialised size, given up on as soon as it passes `stopAbove`. Iterative: values may nest deeply. */
export function jsonUpperBound(root: unknown, stopAbove: number): number {
  let total = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0 && total <= stopAbove) {
    let value = pending.pop();
    if (isObject(value) && typeof value['toJSON'] === 'function') value = (value['toJSON'] as () => unknown)();
    if (typeof value === 'string') total += stringBound(value);
    else if (typeof value === 'number') total += NUMBER_BOUND;
    else if (Array.isArray(value)) {
      total += 2 + value.length;
      for (const item of value) pending.push(item);
    } else if (isObject(value)) {
      total += 2;
      for (const key of Object.keys(value)) {
        total += stringBound(key) + 2;
        pending.push(value[key]);
      }
    } else total += 5; // true, false, null, and what prints as null
  }
  return total;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
