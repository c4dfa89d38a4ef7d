import { closeSync, mkdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { entriesOf } from '../walk';
import { at, openRoot, openSubdirectory, readHeld, withEntry } from './pinned';

/** Files copied between two turns of the event loop: a large project must not stall the service. */
const FILES_PER_TURN = 256;

/**
 * Copies the tree of `realRoot` (a real path) into `destination`, an empty directory that only the
 * caller uses yet, leaving out what `skip` names (`/`-separated, relative to the root). The tree is
 * read through handles, since a command may be changing it meanwhile: a directory swapped for a
 * symlink is not entered, a file not read through one. Symlinks are copied as they are written,
 * files with their permission bits; FIFOs, sockets and devices are left out.
 */
export async function copyTreeFromRoot(realRoot: string, destination: string, skip: (path: string) => boolean): Promise<void> {
  let copied = 0;
  const visit = async (directory: number, folder: string): Promise<void> => {
    for (const entry of entriesOf(directory)) {
      const path = folder ? `${folder}/${entry.name}` : entry.name;
      if (skip(path)) continue;
      const target = join(destination, path);
      if (entry.isSymbolicLink()) {
        symlinkSync(readlinkSync(at(directory, entry.name)), target);
      } else if (entry.isDirectory()) {
        let sub: number | undefined;
        try {
          sub = openSubdirectory(directory, entry.name, path);
        } catch {
          sub = undefined; // became a symlink since it was listed
        }
        if (sub === undefined) continue;
        try {
          mkdirSync(target);
          await visit(sub, path);
        } finally {
          closeSync(sub);
        }
      } else if (entry.isFile()) {
        try {
          withEntry(directory, entry.name, path, (found) => {
            if (found?.info.isFile()) writeFileSync(target, readHeld(found.fd, found.info.size), { mode: found.info.mode & 0o777 });
          });
        } catch {
          continue; // became a symlink since it was listed
        }
        copied += 1;
        if (copied % FILES_PER_TURN === 0) await nextTurn();
      }
    }
  };
  const root = openRoot(realRoot);
  try {
    await visit(root, '');
  } finally {
    closeSync(root);
  }
}
