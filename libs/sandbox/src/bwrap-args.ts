import { lstatSync, readlinkSync } from 'node:fs';
import { dirname } from 'node:path';

/** A top-level system entry: bound read-only when a directory, recreated when a symlink (`/bin -> usr/bin`). */
export interface SystemEntry {
  path: string;
  symlinkTo?: string;
}

export interface HostLayout {
  system: readonly SystemEntry[];
  /** The installation of the service's Node when it lives outside /usr (e.g. under ~/.cache). */
  nodeDir: string | null;
  nodeBinDir: string;
}

export interface BwrapPlan {
  root: string;
  home: string;
  network: boolean;
  env: Readonly<Record<string, string>>;
  /** Size of /tmp; /dev/shm gets as much, up to SHM_MAX_BYTES. */
  tmpBytes: number;
  /**
   * Paths inside the root bound read-only over themselves: the version-control metadata the host's
   * tools execute from (hooks, `core.fsmonitor`). Each comes as a descriptor the sandbox inherits,
   * opened and checked beforehand, so what is bound is what was checked even if the path changes.
   */
  readOnly: readonly PinnedPath[];
}

/** A path and the descriptor number, in the bwrap process, of the entry opened at it. */
export interface PinnedPath {
  path: string;
  fd: number;
}

/** Docker's default size of /dev/shm: enough for shared memory between processes, and it is RAM. */
export const SHM_MAX_BYTES = 64 * 1024 * 1024;

const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32'];

/**
 * The part of /etc that linkers, git, node and python read. Not passwd, shadow, group or the TLS
 * private keys: /etc/ssl is bound piece by piece for that reason.
 */
const ETC = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/localtime',
  '/etc/nsswitch.conf',
];
const ETC_NETWORK = ['/etc/resolv.conf', '/etc/hosts', '/etc/gai.conf'];

/** What this machine's file system looks like, read once: the pure argv builder takes it as data. */
export function hostLayout(execPath: string): HostLayout {
  const system = SYSTEM.flatMap((path): SystemEntry[] => {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) return [{ path, symlinkTo: readlinkSync(path) }];
      return stat.isDirectory() ? [{ path }] : [];
    } catch {
      return [];
    }
  });
  const nodeBinDir = dirname(execPath);
  const installation = dirname(nodeBinDir);
  const coveredBySystem = system.some(
    (e) => e.symlinkTo === undefined && (installation === e.path || installation.startsWith(`${e.path}/`)),
  );
  return { system, nodeDir: coveredBySystem ? null : installation, nodeBinDir };
}

const pairs = (flag: string, items: readonly string[]) => items.flatMap((item) => [flag, item, item]);

/**
 * The bubblewrap arguments for one call: the system read-only, the project root the one writable
 * directory (at its own path, so tools print the paths the user knows), private /tmp, /proc and /dev,
 * new namespaces of every kind and no capabilities. As root, bwrap keeps every capability inside its
 * user namespace unless told otherwise, and with them a command could remount /usr read-write.
 */
export function bwrapArgs(layout: HostLayout, plan: BwrapPlan): string[] {
  const system = layout.system.flatMap((e) =>
    e.symlinkTo === undefined ? ['--ro-bind', e.path, e.path] : ['--symlink', e.symlinkTo, e.path],
  );
  const env = Object.entries(plan.env).flatMap(([name, value]) => ['--setenv', name, value]);
  return [
    ...system,
    ...pairs('--ro-bind-try', plan.network ? [...ETC, ...ETC_NETWORK] : ETC),
    ...(layout.nodeDir === null ? [] : ['--ro-bind', layout.nodeDir, layout.nodeDir]),
    // A tmpfs lives in memory that RLIMIT_AS does not count, so both writable ones have a size.
    '--size',
    String(plan.tmpBytes),
    '--tmpfs',
    '/tmp',
    '--dir',
    plan.home,
    '--bind',
    plan.root,
    plan.root,
    ...plan.readOnly.flatMap(({ path, fd }) => ['--ro-bind-fd', String(fd), path]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(Math.min(plan.tmpBytes, SHM_MAX_BYTES)),
    '--tmpfs',
    '/dev/shm',
    // /dev itself is a tmpfs too: its device nodes work on a read-only mount.
    '--remount-ro',
    '/dev',
    // The skeleton bwrap built the mounts on turns read-only: a write beyond the root fails, or lands
    // in the private /tmp, which dies with the call.
    '--remount-ro',
    '/',
    '--chdir',
    plan.root,
    '--unshare-all',
    ...(plan.network ? ['--share-net'] : []),
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    ...env,
    '--',
  ];
}
