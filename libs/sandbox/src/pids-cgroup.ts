import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';

/**
 * A pids cgroup per call caps processes and threads for every user, root included (RLIMIT_NPROC does
 * not bind uid 0), and lists whatever is left to kill when the call ends. Used when this process may
 * create cgroups: cgroup v1's pids hierarchy, or a cgroup v2 subtree delegated with `pids` enabled.
 */
export interface CallCgroup {
  /** Writing a pid here moves that process, and everything it starts afterwards, into the cgroup. */
  procsFile: string;
  /** Kills whatever is still inside and removes the cgroup. */
  dispose(): Promise<void>;
}

const PREFIX = 'stagecraft-sandbox-';

function candidates(): string[] {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return [];
  }
  return lines.flatMap((line) => {
    const [, controllers, path] = line.split(':');
    if (path === undefined) return [];
    if (controllers.split(',').includes('pids')) return [join('/sys/fs/cgroup/pids', path)];
    if (controllers !== '') return [];
    return ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']
      .map((mount) => join(mount, path))
      .filter((dir) => readFileOr(join(dir, 'cgroup.subtree_control'), '').split(' ').includes('pids'));
  });
}

const readFileOr = (file: string, fallback: string) => {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return fallback;
  }
};

const ownerAlive = (name: string) => {
  try {
    process.kill(Number(name.slice(PREFIX.length).split('-')[0]), 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Cgroups a crashed service left behind; one that still holds processes refuses rmdir and stays. */
function removeStale(parent: string): void {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(PREFIX) || ownerAlive(name)) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // Busy or gone.
    }
  }
}

let parentFound: string | null | undefined;

/** The cgroup directory per-call cgroups go under, or null when none is writable. Decided once. */
export function pidsCgroupParent(): string | null {
  if (parentFound !== undefined) return parentFound;
  parentFound = null;
  for (const parent of candidates()) {
    const probe = join(parent, `${PREFIX}${process.pid}-probe`);
    try {
      mkdirSync(probe);
      writeFileSync(join(probe, 'pids.max'), '1');
      rmdirSync(probe);
      removeStale(parent);
      parentFound = parent;
      break;
    } catch {
      try {
        rmdirSync(probe);
      } catch {
        // Never created.
      }
    }
  }
  return parentFound;
}

let sequence = 0;

const pidsIn = (dir: string) =>
  readFileOr(join(dir, 'cgroup.procs'), '')
    .split('\n')
    .filter((p) => p !== '')
    .map(Number);

export function createCallCgroup(parent: string, maxProcesses: number): CallCgroup {
  const dir = join(parent, `${PREFIX}${process.pid}-${++sequence}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'pids.max'), String(maxProcesses));
  return {
    procsFile: join(dir, 'cgroup.procs'),
    async dispose() {
      // The namespace teardown has normally emptied it already; this is the second line.
      for (let attempt = 0; attempt < 50 && existsSync(dir); attempt++) {
        for (const pid of pidsIn(dir)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Exited meanwhile.
          }
        }
        try {
          rmdirSync(dir);
          return;
        } catch {
          await sleep(20);
        }
      }
    },
  };
}
