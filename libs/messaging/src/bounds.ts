import { ErrorIssue, StagecraftError, StructureLimits, structureExcess, structureIssue } from '@stagecraft/contracts';

/**
 * Bytes are bounded by the transport (`maxPayload`); these bound what the bytes of a request can turn
 * into before it is parsed and validated: a 1 MB body of 349,000 empty strings is cheap to send and
 * cost a service hundreds of MB of parsed values and validation issues (docs/decisions/0034).
 *
 * Far above every request Stagecraft sends itself (measured: depth 9 and under 2,000 values at most),
 * and low enough that a request at every limit costs a service a few MB and milliseconds.
 */
export const DEFAULT_STRUCTURE_LIMITS: StructureLimits = { maxDepth: 64, maxValues: 20_000, maxItems: 10_000 };

export class StructureLimitError extends StagecraftError {
  constructor(what: string, issue: ErrorIssue) {
    super('LIMIT_EXCEEDED', `the ${what} is too large to validate: ${issue.message}`, [issue]);
    this.name = 'StructureLimitError';
  }
}

type Path = ErrorIssue['path'];

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The index of the quote that ends the string opened at `open`, or the text's length if none does. */
function stringEnd(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
  return text.length;
}

/** Per open container: is it an object, how many items so far, where its current key starts. Reused: scans never overlap. */
let open = { isObject: new Uint8Array(65), items: new Uint32Array(65), keyAt: new Int32Array(65) };
type OpenContainers = typeof open;

function openContainers(maxDepth: number): OpenContainers {
  if (open.items.length <= maxDepth) {
    const size = maxDepth + 1;
    open = { isObject: new Uint8Array(size), items: new Uint32Array(size), keyAt: new Int32Array(size) };
  }
  return open;
}

/**
 * Refuses JSON text whose structure is over `limits`, before `JSON.parse` builds any of it: one pass
 * over the characters (strings skipped with `indexOf`), nothing allocated. Counts follow the JSON
 * grammar for every valid prefix, and `JSON.parse` stops at its first error, so whatever it would
 * build is within these counts. Invalid JSON is left to it.
 */
export function checkJsonText(text: string, limits: StructureLimits, what = 'request'): void {
  const containers = openContainers(limits.maxDepth);
  const stopped = scan(text, limits, containers);
  if (stopped) throw new StructureLimitError(what, structureIssue(stopped.excess, limits, textPath(text, stopped.depth, containers)));
}

function scan(text: string, { maxDepth, maxValues, maxItems }: StructureLimits, { isObject, items, keyAt }: OpenContainers) {
  let depth = 0;
  let values = 1;
  let fresh = false; // just opened a container: the next token is its first item, or its end
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    if (fresh) {
      fresh = false;
      if (c !== CLOSE_ARRAY && c !== CLOSE_OBJECT) {
        items[depth] = 1;
        if (maxItems < 1) return { excess: 'items' as const, depth };
        if (++values > maxValues) return { excess: 'values' as const, depth };
      }
    }
    switch (c) {
      case QUOTE:
        if (expectKey) keyAt[depth] = i;
        expectKey = false;
        i = stringEnd(text, i);
        break;
      case OPEN_ARRAY:
      case OPEN_OBJECT:
        if (depth === maxDepth) return { excess: 'depth' as const, depth };
        depth++;
        isObject[depth] = c === OPEN_OBJECT ? 1 : 0;
        items[depth] = 0;
        keyAt[depth] = -1;
        fresh = true;
        expectKey = c === OPEN_OBJECT;
        break;
      case CLOSE_ARRAY:
      case CLOSE_OBJECT:
        if (depth > 0) depth--;
        expectKey = false;
        break;
      case COMMA:
        if (depth === 0) break;
        if (++items[depth] > maxItems) return { excess: 'items' as const, depth };
        if (++values > maxValues) return { excess: 'values' as const, depth };
        expectKey = isObject[depth] === 1;
        break;
      case COLON:
        expectKey = false;
        break;
    }
  }
  return null;
}

/** The path to where the scan stopped, built only for the refusal (keys are parsed from their text). */
function textPath(text: string, depth: number, { isObject, items, keyAt }: OpenContainers): Path {
  const path: Path = [];
  for (let level = 1; level <= depth; level++) {
    if (isObject[level] === 0) path.push(Math.max(0, items[level] - 1));
    else if (keyAt[level] >= 0) {
      try {
        path.push(JSON.parse(text.slice(keyAt[level], stringEnd(text, keyAt[level]) + 1)) as string);
      } catch {
        path.push('?');
      }
    }
  }
  return path;
}

/** The same limits over a value (the in-process lane carries values, not text), counted as its JSON would be. */
export function checkValue(value: unknown, limits: StructureLimits, what = 'request'): void {
  const issue = structureExcess(value, limits);
  if (issue) throw new StructureLimitError(what, issue);
}
