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
