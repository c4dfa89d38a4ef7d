import { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, appMain, spawnProcess } from '@stagecraft/testing';

/** The memory limit a service's Kubernetes manifest gives its container, in bytes. */
export function manifestMemoryLimit(service: string): number {
  const manifest = readFileSync(join(REPO_ROOT, 'deploy', 'k8s', 'base', `${service}.yaml`), 'utf8');
  const match = /\blimits:\s*\n(?:\s+(?!memory:)\w+:.*\n)*\s+memory:\s*(\d+)(Mi|Gi)\b/.exec(manifest);
  if (!match) throw new Error(`no memory limit in deploy/k8s/base/${service}.yaml`);
  return Number(match[1]) * 1024 * 1024 * (match[2] === 'Gi' ? 1024 : 1);
}

const V1 = '/sys/fs/cgroup/memory';
const V2 = '/sys/fs/cgroup';

/**
 * A memory cgroup at `limitBytes`, where this process may make one (root, cgroup v1 or v2 with the
 * memory controller); null elsewhere, and the caller measures peak RSS instead.
 */
function makeCgroup(name: string, limitBytes: number): { dir: string; peak(): number | null; ooms(): number } | null {
  let made: string | undefined;
  try {
    if (existsSync(join(V2, 'cgroup.controllers'))) {
      if (!readFileSync(join(V2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('memory')) return null;
      const dir = join(V2, name);
      mkdirSync(dir);
      made = dir;
      writeFileSync(join(dir, 'memory.max'), String(limitBytes));
      // No swap: over the limit is an OOM kill, as in the pod (a kernel without swap accounting has no file).
      if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
      const oomKills = () => Number(/^oom_kill (\d+)$/m.exec(readFileSync(join(dir, 'memory.events'), 'utf8'))?.[1] ?? 0);
      return {
        dir,
        peak: () => (existsSync(join(dir, 'memory.peak')) ? Number(readFileSync(join(dir, 'memory.peak'), 'utf8')) : null),
        ooms: oomKills,
      };
    }
    if (!existsSync(V1)) return null;
    const dir = join(V1, name);
    mkdirSync(dir);
    made = dir;
    writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limitBytes));
    writeFileSync(join(dir, 'memory.swappiness'), '0');
    const oomKills = () => Number(/oom_kill (\d+)/.exec(readFileSync(join(dir, 'memory.oom_control'), 'utf8'))?.[1] ?? 0);
    return { dir, peak: () => Number(readFileSync(join(dir, 'memory.max_usage_in_bytes'), 'utf8')), ooms: oomKills };
  } catch {
    if (made) rmdirSync(made);
    return null;
  }
}

/** Peak resident memory of a live process (VmHWM), in bytes. */
export function peakRss(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

export interface BoundedProcess {
  name: string;
  child: ChildProcess;
  /** 'cgroup v1' / 'cgroup v2' when the limit is enforced by the kernel, 'peak RSS' when only measured. */
  enforcement: string;
  limitBytes: number;
  /** The process's own peak RSS, and its cgroup's peak charge (page cache included) where there is one. */
  peaks(): { rss: number; cgroup: number | null };
  /** OOM kills in its cgroup (0 without one). */
  oomKills(): number;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `apps/<name>/dist/main.js` as its own process, in a memory cgroup at `limitBytes` when one can be made. */
export function spawnBounded(name: string, env: Record<string, string>, limitBytes: number): BoundedProcess {
  const cgroup = makeCgroup(`stagecraft-bounds-${process.pid}-${name}`, limitBytes);
  const main = appMain(name);
  // The shell joins the cgroup, then becomes node: every byte the service ever takes is charged there.
  const started = cgroup
    ? spawnProcess(name, '/bin/sh', ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup.dir, process.execPath, main], env)
    : spawnProcess(name, process.execPath, [main], env);
  const { child } = started;
  return {
    name,
    child,
    enforcement: cgroup ? (cgroup.dir.startsWith(V1) ? 'cgroup v1' : 'cgroup v2') : 'peak RSS',
    limitBytes,
    peaks: () => ({ rss: peakRss(child.pid as number), cgroup: cgroup?.peak() ?? null }),
    oomKills: () => cgroup?.ooms() ?? 0,
    output: started.output,
    async stop() {
      await started.stop();
      if (cgroup) rmdirSync(cgroup.dir);
    },
  };
}
