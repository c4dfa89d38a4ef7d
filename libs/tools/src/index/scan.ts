import { Dirent, closeSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { Ignore } from 'ignore';
import { openRoot, openSubdirectory, readHeld, withHandle } from '../sandbox/pinned';
import { entriesOf } from '../walk';

/** Never indexed or searched, whatever `.gitignore` says: dependencies, version control, build output. */
export const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(['node_modules', '.git', 'dist']);

/** A `.gitignore` larger than this is not a list of rules; it is left out. */
const GITIGNORE_MAX_BYTES = 1024 * 1024;

interface Rules {
  /** The folder (relative to the root, `''` or ending in `/`) whose `.gitignore` these are. */
  base: string;
  rules: Ignore;
}

/** The text of a regular file below the real root, or null; read through ./sandbox/pinned, so never through a symlink. */
function readSmallFile(root: string, relativePath: string, limit: number): string | null {
  try {
    return withHandle(root, join(root, relativePath), relativePath, (found) =>
      found?.info.isFile() && found.info.size <= limit ? readHeld(found.fd, limit).toString('utf8') : null,
    );
  } catch {
    return null;
  }
}

/** Decides whether a path of the tree is ignored by the `.gitignore` files on its way (nested ones too). */
export class GitIgnore {
  private readonly cache = new Map<string, Rules | null>();

  /** `root` is the real path of the project root. */
  constructor(private readonly root: string) {}

  private rulesOf(folder: string): Rules | null {
    let rules = this.cache.get(folder);
    if (rules === undefined) {
      const text = readSmallFile(this.root, `${folder}.gitignore`, GITIGNORE_MAX_BYTES);
      rules = text === null ? null : { base: folder, rules: ignore().add(text) };
      this.cache.set(folder, rules);
    }
    return rules;
  }

  /** `relative` is `/`-separated; folders are checked with a trailing `/`. */
  async ignores(relative: string, isDirectory: boolean): Promise<boolean> {
    const parts = relative.split('/');
    if (parts.some((p) => ALWAYS_SKIPPED.has(p))) return true;
    for (let depth = 0; depth < parts.length; depth += 1) {
      const folder = parts.slice(0, depth).join('/');
      const rules = this.rulesOf(folder ? `${folder}/` : '');
      if (!rules) continue;
      const rest = parts.slice(depth).join('/') + (isDirectory ? '/' : '');
      if (rules.rules.ignores(rest)) return true;
      // A parent folder that is ignored hides everything under it.
      for (let k = depth + 1; k < parts.length; k += 1) if (rules.rules.ignores(`${parts.slice(depth, k).join('/')}/`)) return true;
    }
    return false;
  }
}

/** The directory `under` (`/`-separated, relative to the real root) opened through descriptors, or undefined. */
function openUnder(root: string, under: string): number | undefined {
  let fd: number | undefined = openRoot(root);
  for (const part of under.split('/').filter((p) => p !== '' && p !== '.')) {
    let next: number | undefined;
    try {
      next = part === '..' ? undefined : openSubdirectory(fd, part, under);
    } finally {
      closeSync(fd);
    }
    fd = next;
    if (fd === undefined) return undefined;
  }
  return fd;
}

/**
 * Every file of the tree that `.gitignore` keeps, `/`-separated and sorted. `root` is the real path of
 * the project root; each folder is opened through its parent's descriptor, so symlinks are never
 * followed, not even one swapped in while the tree is walked.
 */
export async function listProjectFiles(root: string, gitignore = new GitIgnore(root), under = ''): Promise<string[]> {
  const files: string[] = [];
  const visit = async (directory: number, folder: string) => {
    for (const entry of entriesOf(directory) as Dirent[]) {
      const relative = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (await gitignore.ignores(relative, true)) continue;
        let sub: number | undefined;
        try {
          sub = openSubdirectory(directory, entry.name, relative);
        } catch {
          sub = undefined; // turned into a symlink since it was listed
        }
        if (sub === undefined) continue;
        try {
          await visit(sub, relative);
        } finally {
          closeSync(sub);
        }
      } else if (entry.isFile() && !(await gitignore.ignores(relative, false))) files.push(relative);
    }
  };
  if (under !== '' && (await gitignore.ignores(under, true))) return files;
  const start = openUnder(root, under);
  if (start === undefined) return files;
  try {
    await visit(start, under);
  } finally {
    closeSync(start);
  }
  return files;
}
