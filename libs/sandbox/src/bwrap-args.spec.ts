import { bwrapArgs, hostLayout, HostLayout } from './bwrap-args';

const layout: HostLayout = {
  system: [{ path: '/usr' }, { path: '/bin', symlinkTo: 'usr/bin' }, { path: '/lib64' }],
  nodeDir: '/home/ci/.cache/node',
  nodeBinDir: '/home/ci/.cache/node/bin',
};
const plan = {
  root: '/work/project',
  home: '/tmp/sandbox-home',
  network: false,
  env: { PATH: '/usr/bin', HOME: '/tmp/sandbox-home' },
  tmpBytes: 256 * 1024 * 1024,
  readOnly: [
    { path: '/work/project/.git', fd: 4 },
    { path: '/work/project/vendor/lib/.git', fd: 5 },
  ],
};

/** Each flag with the arguments it takes, so a test can ask "is /usr bound read-only" without caring where. */
const has = (argv: string[], ...expected: string[]) => argv.some((_, i) => expected.every((e, j) => argv[i + j] === e));

describe('bwrapArgs', () => {
  const argv = bwrapArgs(layout, plan);

  it('binds the system read-only, recreates its symlinks and adds the service Node', () => {
    expect(has(argv, '--ro-bind', '/usr', '/usr')).toBe(true);
    expect(has(argv, '--symlink', 'usr/bin', '/bin')).toBe(true);
    expect(has(argv, '--ro-bind', '/lib64', '/lib64')).toBe(true);
    expect(has(argv, '--ro-bind', '/home/ci/.cache/node', '/home/ci/.cache/node')).toBe(true);
  });

  it('makes the project root the one writable directory, at its own path, and starts there', () => {
    expect(argv.filter((a) => a === '--bind')).toHaveLength(1);
    expect(has(argv, '--bind', '/work/project', '/work/project')).toBe(true);
    expect(has(argv, '--chdir', '/work/project')).toBe(true);
    expect(has(argv, '--remount-ro', '/')).toBe(true);
    // The root comes after /tmp's tmpfs, or a root under /tmp would be hidden by it.
    expect(argv.indexOf('--bind')).toBeGreaterThan(argv.indexOf('--tmpfs'));
  });

  it('binds the version-control metadata read-only over the writable root', () => {
    const root = argv.indexOf('--bind');
    for (const { path, fd } of plan.readOnly) {
      expect(has(argv, '--ro-bind-fd', String(fd), path)).toBe(true);
      expect(argv.indexOf(path)).toBeGreaterThan(root);
    }
  });

  it('gives /tmp and /dev/shm (at most 64 MiB) a size and leaves no other tmpfs writable', () => {
    expect(has(argv, '--size', String(256 * 1024 * 1024), '--tmpfs', '/tmp')).toBe(true);
    expect(has(argv, '--size', String(64 * 1024 * 1024), '--tmpfs', '/dev/shm')).toBe(true);
    expect(argv.filter((a) => a === '--tmpfs')).toHaveLength(2);
    expect(has(argv, '--remount-ro', '/dev')).toBe(true);
    expect(argv.indexOf('/dev/shm')).toBeLessThan(argv.lastIndexOf('--remount-ro'));
  });

  it('binds a safe part of /etc: never the accounts, never the TLS private keys', () => {
    const etc = argv.filter((a) => a.startsWith('/etc'));
    expect(etc).toContain('/etc/ld.so.cache');
    expect(etc.filter((a) => /passwd|shadow|group|ssl\/private|^\/etc\/?$|^\/etc\/ssl$/.test(a))).toEqual([]);
  });

  it('unshares every namespace, drops every capability and forbids new user namespaces', () => {
    for (const flags of [
      ['--unshare-all'],
      ['--unshare-user'],
      ['--disable-userns'],
      ['--cap-drop', 'ALL'],
      ['--die-with-parent'],
      ['--new-session'],
      ['--proc', '/proc'],
      ['--dev', '/dev'],
    ]) {
      expect(has(argv, ...flags)).toBe(true);
    }
    expect(argv).not.toContain('--share-net');
    expect(argv.filter((a) => a === '/etc/resolv.conf')).toEqual([]);
  });

  it('shares the network and its name resolution only when the operator allows it', () => {
    const networked = bwrapArgs(layout, { ...plan, network: true });
    expect(networked).toContain('--share-net');
    expect(has(networked, '--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf')).toBe(true);
  });

  it('clears the environment and sets exactly the given one, then ends the options', () => {
    const clear = argv.indexOf('--clearenv');
    expect(clear).toBeGreaterThan(-1);
    expect(argv.slice(clear + 1)).toEqual(['--setenv', 'PATH', '/usr/bin', '--setenv', 'HOME', '/tmp/sandbox-home', '--']);
  });
});

describe('hostLayout', () => {
  it('finds /usr and the directory of the running Node', () => {
    const found = hostLayout(process.execPath);
    expect(found.system).toContainEqual({ path: '/usr' });
    expect(process.execPath.startsWith(`${found.nodeBinDir}/`)).toBe(true);
    expect(found.nodeDir === null || found.nodeBinDir.startsWith(`${found.nodeDir}/`)).toBe(true);
  });
});
