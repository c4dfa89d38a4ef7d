import type { EntryPoint, IndexEvent, IndexLanguage, IndexedFile, IndexedSymbol, SymbolKind } from '@stagecraft/contracts';

/** A definition with the file it is in. */
export interface SymbolHit extends IndexedSymbol {
  path: string;
  language: IndexLanguage;
}

/**
 * The codebase index of one project root, folded from its `IndexUpdated` events. The fold owns its
 * view: `evolveIndex` updates it in place (a one-file update must not copy the whole index).
 */
export interface IndexView {
  root: string | undefined;
  files: Map<string, IndexedFile>;
  /** Lower-cased symbol name → the definitions of that name. */
  byName: Map<string, SymbolHit[]>;
  /** Distinct lower-cased names in sorted order, rebuilt on the first query after an update. */
  sortedNames: string[] | undefined;
  updates: number;
}

export const emptyIndex = (): IndexView => ({ root: undefined, files: new Map(), byName: new Map(), sortedNames: undefined, updates: 0 });

function unlink(view: IndexView, file: IndexedFile) {
  for (const symbol of file.symbols) {
    const key = symbol.name.toLowerCase();
    const left = (view.byName.get(key) ?? []).filter((hit) => hit.path !== file.path);
    if (left.length > 0) view.byName.set(key, left);
    else view.byName.delete(key);
  }
}

function link(view: IndexView, file: IndexedFile) {
  for (const symbol of file.symbols) {
    const key = symbol.name.toLowerCase();
    const hit: SymbolHit = { ...symbol, path: file.path, language: file.language };
    const list = view.byName.get(key);
    if (list) list.push(hit);
    else view.byName.set(key, [hit]);
  }
}

export function evolveIndex(view: IndexView, event: IndexEvent): IndexView {
  return event.type === 'IndexUpdated' ? applyIndexUpdate(view, event.data) : view;
}

/** One `IndexUpdated`'s data applied: removals first, then the added or changed files. */
export function applyIndexUpdate(view: IndexView, data: IndexEvent['data']): IndexView {
  view.root = data.root;
  for (const path of data.removed) {
    const old = view.files.get(path);
    if (!old) continue;
    unlink(view, old);
    view.files.delete(path);
  }
  for (const file of data.files) {
    const old = view.files.get(file.path);
    if (old) unlink(view, old);
    view.files.set(file.path, file);
    link(view, file);
  }
  view.sortedNames = undefined;
  view.updates += 1;
  return view;
}

export const foldIndex = (events: Iterable<IndexEvent>): IndexView => {
  let view = emptyIndex();
  for (const event of events) view = evolveIndex(view, event);
  return view;
};

/** The view as canonical JSON (files in path order): two folds of the same events give the same bytes. */
export function serializeIndex(view: IndexView): string {
  const files = [...view.files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return JSON.stringify({ root: view.root ?? null, files });
}

export interface FindSymbolQuery {
  name: string;
  kind?: SymbolKind;
  language?: IndexLanguage;
  /** Only definitions in this file or under this folder (relative to the root). */
  path?: string;
  limit?: number;
}

export type MatchQuality = 'exact' | 'case_insensitive' | 'prefix' | 'substring' | 'fuzzy';
export interface SymbolMatch extends SymbolHit {
  match: MatchQuality;
}

/** Declaration files and tests rank after the code they describe or exercise. */
const placeRank = (path: string) => (path.endsWith('.d.ts') ? 2 : /\.(spec|test)\.|(^|\/)(tests?|__tests__)\//.test(path) ? 1 : 0);

/**
 * Among definitions of one name: source before declarations and tests, then by path; in one file the
 * longest first (an implementation before its overload signatures), then by line.
 */
const byPlace = (a: SymbolHit, b: SymbolHit) =>
  placeRank(a.path) - placeRank(b.path) ||
  (a.path < b.path ? -1 : a.path > b.path ? 1 : b.endLine - b.startLine - (a.endLine - a.startLine) || a.startLine - b.startLine);

function sortedNames(view: IndexView): string[] {
  view.sortedNames ??= [...view.byName.keys()].sort();
  return view.sortedNames;
}

const isSubsequence = (needle: string, hay: string) => {
  let i = 0;
  for (let j = 0; j < hay.length && i < needle.length; j += 1) if (hay[j] === needle[i]) i += 1;
  return i === needle.length;
};

/** Exact name first, then the same name in another case, then prefix, substring and in-order letters. */
export function findSymbol(view: IndexView, query: FindSymbolQuery): SymbolMatch[] {
  const limit = query.limit ?? 20;
  // `Circle.area` (or `Point::new`) asks for `area` inside `Circle`.
  const qualified = /^(.+?)(?:\.|::)([^.:]+)$/.exec(query.name.trim());
  const container = qualified?.[1];
  const wanted = qualified ? qualified[2] : query.name.trim();
  const key = wanted.toLowerCase();
  const scope = query.path?.replace(/^\.\/?/, '').replace(/\/+$/, '');
  const fits = (hit: SymbolHit) =>
    (!query.kind || hit.kind === query.kind) &&
    (!query.language || hit.language === query.language) &&
    (container === undefined || hit.container === container) &&
    (scope === undefined || hit.path === scope || hit.path.startsWith(`${scope}/`) || scope === '');
  const results: SymbolMatch[] = [];
  const seen = new Set<SymbolHit>();
  const add = (hits: readonly SymbolHit[], match: MatchQuality) => {
    for (const hit of [...hits].sort(byPlace)) {
      if (results.length >= limit) return;
      if (seen.has(hit) || !fits(hit)) continue;
      seen.add(hit);
      results.push({ ...hit, match });
    }
  };
  const same = view.byName.get(key) ?? [];
  add(
    same.filter((h) => h.name === wanted),
    'exact',
  );
  add(same, 'case_insensitive');
  if (results.length >= limit || key.length === 0) return results;
  const names = sortedNames(view);
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (names[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < names.length && names[i].startsWith(key) && results.length < limit; i += 1)
    if (names[i] !== key) add(view.byName.get(names[i]) ?? [], 'prefix');
  // Substrings and in-order letters only when the name matched nothing better: a scan of every name.
  if (results.length > 0) return results;
  for (const name of names) if (name.includes(key)) add(view.byName.get(name) ?? [], 'substring');
  if (results.length > 0 || key.length < 3) return results;
  const fuzzy = names.filter((name) => isSubsequence(key, name)).sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  for (const name of fuzzy) add(view.byName.get(name) ?? [], 'fuzzy');
  return results;
}

export interface EntryPointHit extends EntryPoint {
  path: string;
}

const KIND_ORDER: readonly EntryPoint['kind'][] = ['bin', 'main', 'main_function', 'service_entry', 'script'];

/** Every entry point: manifests' bins and mains first, then main functions, service entry files, scripts. */
export function listEntryPoints(view: IndexView): EntryPointHit[] {
  const hits: EntryPointHit[] = [];
  for (const file of view.files.values()) for (const entry of file.entryPoints) hits.push({ ...entry, path: file.path });
  return hits.sort(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0)),
  );
}

export interface SearchHit {
  score: number;
  path: string;
  symbol?: SymbolHit;
}

const tokensOf = (text: string) =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0);

/**
 * Lexical search over symbol names, doc comments and paths; names weigh most. `all`: every query word
 * must appear; `any`: at least one (the wider net a ranking by meaning picks from).
 */
export function searchIndex(view: IndexView, query: string, limit = 20, match: 'all' | 'any' = 'all'): SearchHit[] {
  const words = tokensOf(query);
  if (words.length === 0) return [];
  const hits: SearchHit[] = [];
  const scoreOf = (name: string, doc: string, path: string) => {
    let total = 0;
    for (const word of words) {
      const s = (name.includes(word) ? 3 : 0) + (doc.includes(word) ? 2 : 0) + (path.includes(word) ? 1 : 0);
      if (s === 0 && match === 'all') return 0;
      total += s;
    }
    return total;
  };
  for (const file of view.files.values()) {
    const path = file.path.toLowerCase();
    const fileScore = scoreOf('', '', path);
    if (fileScore > 0) hits.push({ score: fileScore, path: file.path });
    for (const symbol of file.symbols) {
      const score = scoreOf(tokensOf(symbol.name).join(' ') + ' ' + symbol.name.toLowerCase(), (symbol.doc ?? '').toLowerCase(), path);
      if (score > 0)
        hits.push({
          score: score + (symbol.name.toLowerCase() === query.trim().toLowerCase() ? 5 : 0),
          path: file.path,
          symbol: { ...symbol, path: file.path, language: file.language },
        });
    }
  }
  return hits
    .sort(
      (a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.symbol?.startLine ?? 0) - (b.symbol?.startLine ?? 0)),
    )
    .slice(0, limit);
}

/** A few lines for a prompt: the top-level layout (folders with file counts, languages) and the entry points. */
export function projectMap(view: IndexView, maxEntries = 12): string {
  if (view.files.size === 0) return '';
  const folders = new Map<string, { files: number; languages: Set<string> }>();
  for (const file of view.files.values()) {
    const slash = file.path.indexOf('/');
    const top = slash < 0 ? '.' : `${file.path.slice(0, slash)}/`;
    const entry = folders.get(top) ?? { files: 0, languages: new Set<string>() };
    entry.files += 1;
    if (file.language !== 'other') entry.languages.add(file.language);
    folders.set(top, entry);
  }
  const layout = [...folders.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([folder, e]) =>
        `- ${folder} (${e.files} file${e.files === 1 ? '' : 's'}${e.languages.size ? `; ${[...e.languages].sort().join(', ')}` : ''})`,
    );
  const entries = listEntryPoints(view)
    .slice(0, maxEntries)
    .map((e) => `- ${e.kind} ${e.name}${e.detail ? ` → ${e.detail}` : ''} (${e.path}${e.line ? `:${e.line}` : ''})`);
  return ['Layout:', ...layout, ...(entries.length ? ['Entry points:', ...entries] : [])].join('\n');
}
