export interface ViewDifference {
  /** A JSON path from the view's root, e.g. `$.runs["r-1"].status` or `$.active[2]`. */
  path: string;
  /** The value on each side, as JSON; `undefined` where that side has nothing at the path. */
  live: string | undefined;
  rebuilt: string | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`);
const shown = (value: unknown) => (value === undefined ? undefined : JSON.stringify(value));

/**
 * Where two JSON views differ, depth first in key order, at most `limit` places: the first values
 * that differ, not every value under them. Compare views as the checkpoint store keeps them (JSON).
 */
export function viewDifferences(live: unknown, rebuilt: unknown, limit = 5): ViewDifference[] {
  const found: ViewDifference[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (found.length >= limit) return;
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i += 1) walk(a[i], b[i], `${path}[${i}]`);
      return;
    }
    if (isObject(a) && isObject(b)) {
      for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) walk(a[name], b[name], `${path}${key(name)}`);
      return;
    }
    if (shown(a) !== shown(b)) found.push({ path, live: shown(a), rebuilt: shown(b) });
  };
  walk(live, rebuilt, '$');
  return found;
}
