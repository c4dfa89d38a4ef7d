import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, realpath, rename, stat, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { StagecraftError } from '@stagecraft/contracts';
import { readHeld, touchesVcsMetadata, withHandle } from '@stagecraft/tools';
import { hostGit } from './host-git';

/**
 * Never part of a snapshot, a copy nor a merge: the store, other worktrees, installed packages, and
 * version-control metadata (`.git`, `.hg`, `.svn` in any case, at any depth), whose hooks and config
 * would run on the host.
 */
const SKIPPED = new Set(['.stagecraft', 'node_modules']);
export const skipped = (path: string): boolean => touchesVcsMetadata(path) || path.split(/[\\/]/).some((part) => SKIPPED.has(part));

/**
 * The copies and snapshots live in the root's own `.stagecraft`: a symlink on that way (planted before
 * commands could no longer write there) would put them, and what is merged back from them, elsewhere.
 */
export async function refuseRedirected(projectRoot: string, dir: string): Promise<void> {
  const spelled = join(await realpath(projectRoot), relative(projectRoot, dir));
  if ((await realpath(dir)) !== spelled)
    throw new StagecraftError('FORBIDDEN_PATH', `'${relative(projectRoot, dir)}' leads out of its place through a symlink`, [
      { path: ['projectRoot'], message: 'remove the symlink under .stagecraft, then start the workflow again' },
    ]);
}

/** One file of a snapshot: its content's sha256 and its permission bits. */
export interface SnapshotEntry {
  sha256: string;
  mode: number;
}
/** path (`/`-separated, relative to the root) → entry; its id is the sha256 of its canonical JSON. */
export type SnapshotManifest = Readonly<Record<string, SnapshotEntry>>;

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

const storeOf = (projectRoot: string) => join(projectRoot, '.stagecraft', 'snapshots');
const objectPath = (projectRoot: string, digest: string) => join(storeOf(projectRoot), 'objects', digest.slice(0, 2), digest);
const manifestFile = (projectRoot: string, id: string) => join(storeOf(projectRoot), `${id}.json`);

/**
 * A regular file under `realRoot`, read through a handle of the file itself: a symlink on the way or
 * in its place is not followed, a FIFO is not waited on. Null when it is not (or no longer) a regular file.
 */
export function readRegular(realRoot: string, path: string): { bytes: Buffer; mode: number } | null {
  try {
    return withHandle(realRoot, join(realRoot, path), path, (found) =>
      found?.info.isFile() ? { bytes: readHeld(found.fd, found.info.size), mode: found.info.mode & 0o777 } : null,
    );
  } catch {
    return null;
  }
}

/** Every regular file under `root` that a copy holds (symlinks are not entered), `/`-separated and sorted. */
export async function walkFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((path) => !skipped(path))
    .sort();
}

/**
 * The files of the working tree as the user has them: in a git repository what git lists as tracked
 * or untracked-and-not-ignored (`.gitignore` respected, uncommitted edits included); elsewhere every
 * regular file.
 */
async function workingTreeFiles(projectRoot: string, isolation: 'git-worktree' | 'copy'): Promise<string[]> {
  if (isolation === 'git-worktree') {
    const { stdout } = await hostGit(projectRoot, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
    return [...new Set(stdout.split('\0').filter((path) => path.length > 0 && !skipped(path)))].sort();
  }
  return walkFiles(projectRoot);
}

const canonical = (manifest: SnapshotManifest): string =>
  JSON.stringify(
    Object.keys(manifest)
      .sort()
      .map((path) => [path, manifest[path].sha256, manifest[path].mode]),
  );

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Writes through a temporary name, so a crash never leaves half an object under its digest. */
async function writeOnce(path: string, bytes: Buffer | string): Promise<void> {
  if (await exists(path)) return;
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, bytes, { flag: 'w' });
  await rename(temporary, path);
}

/**
 * Records the working tree as it is now under `.stagecraft/snapshots`: each file's bytes once, by
 * digest, and a manifest named by its own digest. Returns that id and the number of files. Taking the
 * same tree twice gives the same id and writes nothing new.
 */
export async function takeSnapshot(projectRoot: string, isolation: 'git-worktree' | 'copy'): Promise<{ id: string; files: number }> {
  const realRoot = await realpath(projectRoot);
  const manifest: Record<string, SnapshotEntry> = {};
  // Each level is checked before anything is made under it: a symlink planted there would lead the snapshot elsewhere.
  await mkdir(join(realRoot, '.stagecraft'), { recursive: true });
  await refuseRedirected(realRoot, join(realRoot, '.stagecraft'));
  await mkdir(storeOf(realRoot), { recursive: true });
  await refuseRedirected(realRoot, storeOf(realRoot));
  await mkdir(join(storeOf(realRoot), 'objects'), { recursive: true });
  for (const path of await workingTreeFiles(realRoot, isolation)) {
    const file = readRegular(realRoot, path);
    if (file === null) continue; // deleted, a symlink, or not a regular file: not part of the tree's files
    const digest = sha256(file.bytes);
    await mkdir(join(storeOf(realRoot), 'objects', digest.slice(0, 2)), { recursive: true });
    await writeOnce(objectPath(realRoot, digest), file.bytes);
    manifest[path] = { sha256: digest, mode: file.mode };
  }
  const text = canonical(manifest);
  const id = sha256(text);
  await writeOnce(manifestFile(realRoot, id), text);
  return { id, files: Object.keys(manifest).length };
}

/** A snapshot's manifest, checked against its id: a manifest edited since it was taken is refused. */
export async function readSnapshot(projectRoot: string, id: string): Promise<SnapshotManifest> {
  if (!/^[0-9a-f]{64}$/.test(id)) throw new Error(`'${id}' is not a snapshot id`);
  const text = await readFile(manifestFile(projectRoot, id), 'utf8');
  if (sha256(text) !== id) throw new Error(`snapshot ${id} was changed since it was taken`);
  const rows = JSON.parse(text) as [string, string, number][];
  return Object.fromEntries(rows.map(([path, digest, mode]) => [path, { sha256: digest, mode }]));
}

/** The bytes a snapshot recorded under a digest, checked against it; null when they are gone or altered. */
export async function snapshotObject(projectRoot: string, digest: string): Promise<Buffer | null> {
  if (!/^[0-9a-f]{64}$/.test(digest)) return null;
  const bytes = await readFile(objectPath(projectRoot, digest)).catch(() => null);
  return bytes !== null && sha256(bytes) === digest ? bytes : null;
}
