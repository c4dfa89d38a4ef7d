import { z } from 'zod';
import { ErrorIssue } from './errors';

/** How much structure a JSON value may have: what its bytes can turn into once parsed (docs/decisions/0034). */
export interface StructureLimits {
  /** Arrays and objects nested inside each other. */
  maxDepth: number;
  /** Every value: the root, and each item of an array or member of an object. */
  maxValues: number;
  /** Items of any one array, members of any one object. */
  maxItems: number;
}

export type StructureExcess = 'depth' | 'values' | 'items';

const count = (n: number) => n.toLocaleString('en-US');

/** The one wording of a refusal, whichever lane found it. */
export function structureIssue(excess: StructureExcess, limits: StructureLimits, path: ErrorIssue['path']): ErrorIssue {
  switch (excess) {
    case 'depth':
      return { path, message: `nested more than ${count(limits.maxDepth)} levels deep`, code: 'too_deep' };
    case 'values':
      return { path, message: `more than ${count(limits.maxValues)} values in all`, code: 'too_many_values' };
    case 'items':
      return { path, message: `more than ${count(limits.maxItems)} items in one array or object`, code: 'too_many_items' };
  }
}

interface PathNode {
  parent: PathNode | null;
  key: string | number;
}
interface Pending {
  value: unknown;
  depth: number;
  at: PathNode | null;
}

function pathOf(node: PathNode | null): ErrorIssue['path'] {
  const path: ErrorIssue['path'] = [];
  for (let n = node; n; n = n.parent) path.unshift(n.key);
  return path;
}

/**
 * The first limit `root` is over, with where, or null. Counted as its JSON would be (an array or object
 * is one value, and each of its items one more). Iterative, and a container is refused by its size
 * before it is walked into, so a million items or a hundred thousand levels cost no more than the limit.
 */
export function structureExcess(root: unknown, limits: StructureLimits): ErrorIssue | null {
  const { maxDepth, maxValues, maxItems } = limits;
  let values = 1;
  const pending: Pending[] = [{ value: root, depth: 0, at: null }];
  while (pending.length > 0) {
    const { value, depth, at } = pending.pop() as Pending;
    if (typeof value !== 'object' || value === null) continue;
    if (depth + 1 > maxDepth) return structureIssue('depth', limits, pathOf(at));
    const keys = Array.isArray(value) ? null : Object.keys(value);
    const size = keys ? keys.length : (value as unknown[]).length;
    if (size > maxItems) return structureIssue('items', limits, pathOf(at));
    values += size;
    if (values > maxValues) return structureIssue('values', limits, pathOf(at));
    for (let i = 0; i < size; i++) {
      const key = keys ? keys[i] : i;
      const item = (value as Record<string | number, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push({ value: item, depth: depth + 1, at: { parent: at, key } });
    }
  }
  return null;
}

/**
 * A JSON object of any shape within `limits`: for fields typed `unknown` inside (tool arguments), whose
 * content no schema bounds. Refused with one issue, at the field's path plus where the excess is.
 */
export const boundedJsonObject = (limits: StructureLimits) =>
  z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const issue = structureExcess(value, limits);
    if (issue) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  });
