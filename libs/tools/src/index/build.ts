import { createHash } from 'node:crypto';
import { Stats } from 'node:fs';
import { join } from 'node:path';
import type { EventData, IndexedFile } from '@stagecraft/contracts';
import { IndexView, MANIFESTS, PARSED_LANGUAGES, ParseSource, indexSource, languageOf } from '@stagecraft/index';
import { loadParsers } from './parsers';
import { readHeld, withHandle } from '../sandbox/pinned';
import { GitIgnore, listProjectFiles } from './scan';

export type IndexUpdate = EventData<'IndexUpdated'>;

/** Larger files are listed with their size, not parsed. */
export const INDEX_FILE_MAX_BYTES = 1024 * 1024;

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The `index-<project>` stream's key for a project root: a digest of its real path. */
export const indexProjectKey = (root: string) => sha256(root).slice(0, 24);

/** The parse over the grammars these paths need, and only those: each grammar costs its load. */
const parserFor = (paths: readonly string[]) => loadParsers(paths.map(languageOf).filter((l) => PARSED_LANGUAGES.includes(l)));

/** One file as the index records it, or null when it is gone or not a regular file. */
export async function indexFile(
  root: string,
  path: string,
  parseSource?: ParseSource,
  previous?: IndexedFile,
): Promise<IndexedFile | null> {
  const file = readIndexable(root, path);
  if (!file) return null;
  const { info, bytes } = file;
  const language = languageOf(path);
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (!bytes) return { path, language, size: info.size, hash: sha256(`size:${info.size}`), symbols: [], entryPoints: [] };
  const hash = sha256(bytes);
  if (previous && previous.hash === hash && previous.size === info.size) return previous;
  if (language === 'other' && !MANIFESTS.has(base)) return { path, language, size: info.size, hash, symbols: [], entryPoints: [] };
  const found = indexSource(path, bytes.toString('utf8'), parseSource ?? (await parserFor([path])));
  return { path, language: found.language, size: info.size, hash, symbols: found.symbols, entryPoints: found.entryPoints };
}

/** A regular file's metadata, and its bytes unless it is too large; read through ./sandbox/pinned, so never through a symlink. */
function readIndexable(root: string, path: string): { info: Stats; bytes: Buffer | null } | null {
  try {
    return withHandle(root, join(root, path), path, (found) => {
      if (!found?.info.isFile()) return null;
      const bytes = found.info.size <= INDEX_FILE_MAX_BYTES ? readHeld(found.fd, INDEX_FILE_MAX_BYTES) : null;
      return { info: found.info, bytes };
    });
  } catch {
    return null;
  }
}

const sameFile = (a: IndexedFile | undefined, b: IndexedFile) => a === b || (a !== undefined && a.hash === b.hash && a.size === b.size);

/**
 * What changed since `previous`: every kept file of the tree (when `paths` is absent), or only the
 * named paths (after an edit). Unchanged files are left out; files gone or now ignored are removed.
 */
export async function indexProject(root: string, previous: IndexView | undefined, paths?: readonly string[]): Promise<IndexUpdate> {
  const gitignore = new GitIgnore(root);
  const candidates = paths ? [...new Set(paths)].sort() : await listProjectFiles(root, gitignore);
  const parseSource = await parserFor(candidates);
  const files: IndexedFile[] = [];
  const removed: string[] = [];
  for (const path of candidates) {
    const file = (await gitignore.ignores(path, false)) ? null : await indexFile(root, path, parseSource, previous?.files.get(path));
    if (!file) {
      if (previous?.files.has(path)) removed.push(path);
      continue;
    }
    if (!sameFile(previous?.files.get(path), file)) files.push(file);
  }
  if (!paths && previous) {
    const kept = new Set(candidates);
    for (const path of previous.files.keys()) if (!kept.has(path)) removed.push(path);
  }
  removed.sort();
  return { root, files, removed };
}
