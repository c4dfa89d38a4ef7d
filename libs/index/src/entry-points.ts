import type { EntryPoint } from '@stagecraft/contracts';

const SERVICE_ENTRY_FILES: ReadonlySet<string> = new Set([
  'main.ts',
  'main.mts',
  'main.js',
  'main.mjs',
  'server.ts',
  'server.js',
  'index.ts',
  'index.js',
  'main.py',
  '__main__.py',
  'main.go',
  'main.rs',
  'main.swift',
  'Main.kt',
  'Main.java',
]);

/** A service's entry file: `main.ts`, `server.js`, `__main__.py`… at the root or directly in a `src/` (or `cmd/…`) folder. */
export function serviceEntryOf(path: string): EntryPoint | null {
  const slash = path.lastIndexOf('/');
  const base = path.slice(slash + 1);
  const folder = slash < 0 ? '' : path.slice(0, slash);
  const parent = folder.slice(folder.lastIndexOf('/') + 1);
  if (!SERVICE_ENTRY_FILES.has(base)) return null;
  if (base.startsWith('index.') && parent !== 'src') return null;
  if (folder !== '' && parent !== 'src' && !/(^|\/)cmd\/[^/]+$/.test(folder) && base !== '__main__.py') return null;
  return { kind: 'service_entry', name: path };
}

const stringEntries = (value: unknown): [string, string][] =>
  value !== null && typeof value === 'object'
    ? Object.entries(value as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string')
    : [];

/** A package.json's `bin`, `main` and `scripts`; a manifest that is not JSON gives none. */
export function manifestEntryPoints(source: string): EntryPoint[] {
  let manifest: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(source);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
    manifest = parsed as Record<string, unknown>;
  } catch {
    return [];
  }
  const found: EntryPoint[] = [];
  const name = typeof manifest.name === 'string' && manifest.name.length > 0 ? manifest.name : 'package';
  if (typeof manifest.bin === 'string' && manifest.bin.length > 0)
    found.push({ kind: 'bin', name: name.replace(/^@[^/]+\//, ''), detail: manifest.bin });
  for (const [bin, target] of stringEntries(manifest.bin)) if (bin && target) found.push({ kind: 'bin', name: bin, detail: target });
  if (typeof manifest.main === 'string' && manifest.main.length > 0) found.push({ kind: 'main', name, detail: manifest.main });
  for (const [script, command] of stringEntries(manifest.scripts))
    if (script) found.push({ kind: 'script', name: script, detail: command });
  return found;
}

/** The tables of a pyproject.toml whose keys are commands installed with the package. */
const PYPROJECT_SCRIPT_TABLES: readonly string[] = ['project.scripts', 'project.gui-scripts', 'tool.poetry.scripts'];

const TOML_KEY = String.raw`(?:[A-Za-z0-9_-]+|"[^"\\\n]*"|'[^'\n]*')`;
const TOML_STRING = String.raw`(?:"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)')`;
const TOML_HEADER = new RegExp(String.raw`^\[\s*(${TOML_KEY}(?:\s*\.\s*${TOML_KEY})*)\s*\]\s*(?:#.*)?$`);
const TOML_ARRAY_HEADER = /^\[\[/;
const TOML_PAIR = new RegExp(String.raw`^(${TOML_KEY}(?:\s*\.\s*${TOML_KEY})*)\s*=\s*(.*)$`);
const TOML_STRING_VALUE = new RegExp(String.raw`^${TOML_STRING}\s*(?:#.*)?$`);
const TOML_INLINE_PAIR = new RegExp(String.raw`(${TOML_KEY})\s*=\s*${TOML_STRING}\s*(?:,|$)`, 'y');

/** A dotted TOML key as its parts, quotes removed (escapes inside quoted keys are left as written). */
const keyParts = (key: string) =>
  (key.match(new RegExp(TOML_KEY, 'g')) ?? []).map((part) => (/^["']/.test(part) ? part.slice(1, -1) : part));

const stringOf = (match: RegExpExecArray, at: number) => (match[at] !== undefined ? match[at].replace(/\\(["\\])/g, '$1') : match[at + 1]);

/** `{ name = "module:function", … }` on one line; null when it is anything else. */
function inlineTable(text: string): [string, string][] | null {
  const body = /^\{(.*)\}\s*(?:#.*)?$/.exec(text.trim())?.[1].trim();
  if (body === undefined) return null;
  const pairs: [string, string][] = [];
  TOML_INLINE_PAIR.lastIndex = 0;
  while (TOML_INLINE_PAIR.lastIndex < body.length) {
    const start = TOML_INLINE_PAIR.lastIndex;
    const match = TOML_INLINE_PAIR.exec(body);
    if (!match) return null;
    pairs.push([keyParts(match[1])[0], stringOf(match, 2)]);
    while (TOML_INLINE_PAIR.lastIndex < body.length && body[TOML_INLINE_PAIR.lastIndex] === ' ') TOML_INLINE_PAIR.lastIndex += 1;
    if (TOML_INLINE_PAIR.lastIndex === start) return null;
  }
  return pairs;
}

/**
 * A pyproject.toml's console and GUI scripts (`[project.scripts]`, `[project.gui-scripts]`, Poetry's
 * `[tool.poetry.scripts]`), as `bin` entry points whose detail is the `module:function` they run.
 * Reads only the one-line forms these tables take (a table of strings, dotted keys, an inline table);
 * anything else in the file is passed over, and a file that is not TOML gives none.
 */
export function pyprojectEntryPoints(source: string): EntryPoint[] {
  const found: EntryPoint[] = [];
  const add = (path: string[], name: string | undefined, target: string | undefined) => {
    if (name && target && PYPROJECT_SCRIPT_TABLES.includes(path.join('.'))) found.push({ kind: 'bin', name, detail: target });
  };
  let table: string[] = [];
  for (const raw of source.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (TOML_ARRAY_HEADER.test(line)) {
      table = ['[['];
      continue;
    }
    const header = TOML_HEADER.exec(line);
    if (header) {
      table = keyParts(header[1]);
      continue;
    }
    const pair = TOML_PAIR.exec(line);
    if (!pair) continue;
    const key = [...table, ...keyParts(pair[1])];
    const value = TOML_STRING_VALUE.exec(pair[2].trim());
    if (value) add(key.slice(0, -1), key[key.length - 1], stringOf(value, 1));
    else for (const [name, target] of inlineTable(pair[2]) ?? []) add(key, name, target);
  }
  return found;
}

/** The manifests whose entry points the index reads, by file name (a Map: a file may be named `constructor`). */
export const MANIFESTS: ReadonlyMap<string, (source: string) => EntryPoint[]> = new Map([
  ['package.json', manifestEntryPoints],
  ['pyproject.toml', pyprojectEntryPoints],
]);
