import { Dirent } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { Ignore } from 'ignore';

/** Never indexed or searched, whatever `.gitignore` says: dependencies, version control, build output. */
export const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(['node_modules', '.git', 'dist']);

interface Rules {
  /** The folder (relative to the root, `''` or ending in `/`) whose `.gitignore` these are. */
  base: string;
  rules: Ignore;
}

/** Decides whether a path of the tree is ignored by the `.gitignore` files on its way (nested ones too). */
export class GitIgnore {
  private readonly cache = new Map<string, Promise<Rules | null>>();

  constructor(private readonly root: string) {}

  private rulesOf(folder: string): Promise<Rules | null> {
    let rules = this.cache.get(folder);
    if (!rules) {
      rules = readFile(join(this.root, folder, '.gitignore'), 'utf8').then(
        (text) => ({ base: folder, rules: ignore().add(text) }),
        () => null,
      );
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
      const base = folder ? `${folder}/` : '';
      const rules = await this.rulesOf(base);
      if (!rules) continue;
      const rest = parts.slice(depth).join('/') + (isDirectory ? '/' : '');
      if (rules.rules.ignores(rest)) return true;
      // A parent folder that is ignored hides everything under it.
      for (let k = depth + 1; k < parts.length; k += 1) if (rules.rules.ignores(`${parts.slice(depth, k).join('/')}/`)) return true;
    }
    return false;
  }
}

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Every file of the tree that `.gitignore` keeps, `/`-separated and sorted; symlinks are not followed. */
export async function listProjectFiles(root: string, gitignore = new GitIgnore(root), under = ''): Promise<string[]> {
  const files: string[] = [];
  const visit = async (folder: string) => {
    const entries = await readdir(join(root, folder), { withFileTypes: true }).catch(() => [] as Dirent[]);
    for (const entry of entries.sort(byName)) {
      const relative = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!(await gitignore.ignores(relative, true))) await visit(relative);
      } else if (entry.isFile() && !(await gitignore.ignores(relative, false))) files.push(relative);
    }
  };
  if (under === '' || !(await gitignore.ignores(under, true))) await visit(under);
  return files;
}
