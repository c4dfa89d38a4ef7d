import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The processes this host started for tool calls, one small file each, so that a tool service that
 * died mid-call can be cleaned up after by the next one on the same host: process ids mean nothing
 * anywhere else, which is why this is a local file and not an event.
 */
export interface InFlightEntry {
  callId: string;
  /** The tool service process that started the command, and when it started (to tell a reused pid apart). */
  ownerPid: number;
  ownerStart: string | null;
  /** The command's process group leader (the sandbox, or the command itself). */
  childPid: number;
  childStart: string | null;
}

export const defaultInFlightDir = (): string => join(tmpdir(), `stagecraft-${process.getuid?.() ?? 'user'}`, 'tool-calls');

/** Field 22 of /proc/<pid>/stat: the start time in clock ticks since boot; null off Linux or when the process is gone. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(pid: number, start: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return start === null || processStart(pid) === start;
}

const fileOf = (dir: string, callId: string) => join(dir, `${callId}.json`);

/** Notes that `owner` (this tool service's process, as its app names it) started `childPid` for the call. */
export function recordSpawn(dir: string, callId: string, childPid: number, owner: number): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const entry: InFlightEntry = {
    callId,
    ownerPid: owner,
    ownerStart: processStart(owner),
    childPid,
    childStart: processStart(childPid),
  };
  writeFileSync(fileOf(dir, callId), JSON.stringify(entry), { mode: 0o600 });
}

export function releaseSpawn(dir: string, callId: string): void {
  rmSync(fileOf(dir, callId), { force: true });
}

/** Every process below `root` (children, their children, ...), from the parent ids in /proc. */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  for (let queue = [root]; queue.length > 0;) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

const signal = (pid: number, name: NodeJS.Signals): void => {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
};

/**
 * Kills a call `owner` (this process) started, if it still runs; whether it did. The group is stopped first, so
 * nothing in it forks meanwhile, then every process below it is killed with it: the sandbox's own
 * init runs in a session of its own, and is not yet bound to die with its parent when the call is
 * cancelled the moment it starts.
 */
export function killSpawn(dir: string, callId: string, owner: number): boolean {
  let entry: InFlightEntry;
  try {
    entry = JSON.parse(readFileSync(fileOf(dir, callId), 'utf8')) as InFlightEntry;
  } catch {
    return false;
  }
  if (entry.ownerPid !== owner || !isAlive(entry.childPid, entry.childStart)) return false;
  killTree(entry.childPid);
  return true;
}

/**
 * A call's process group and every process below it, wherever it went: a sandbox started in its own
 * session (`bwrap --new-session`) is not in the group, and one killed in its first milliseconds has not
 * armed `--die-with-parent` yet. The group is stopped first, so nothing forks while it is walked.
 */
function killTree(childPid: number): void {
  signal(-childPid, 'SIGSTOP');
  const below = descendantsOf(childPid);
  signal(-childPid, 'SIGKILL');
  for (const pid of below) {
    signal(-pid, 'SIGKILL');
    signal(pid, 'SIGKILL');
  }
}

/** Calls whose tool service is gone: their process groups are killed here, and their entries returned for recording. */
export function reapOrphans(dir: string): InFlightEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const orphans: InFlightEntry[] = [];
  for (const name of names) {
    let entry: InFlightEntry;
    try {
      entry = JSON.parse(readFileSync(join(dir, name), 'utf8')) as InFlightEntry;
    } catch {
      rmSync(join(dir, name), { force: true });
      continue;
    }
    if (isAlive(entry.ownerPid, entry.ownerStart)) continue;
    if (isAlive(entry.childPid, entry.childStart)) killTree(entry.childPid);
    orphans.push(entry);
  }
  return orphans;
}
