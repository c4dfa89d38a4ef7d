import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX_OPTIONS } from './options';
import { probeSandbox } from './probe';
import { runSandboxed } from './run-sandboxed';

describe('probeSandbox', () => {
  it('reports a bwrap that cannot start a sandbox, with what went wrong', async () => {
    const status = await probeSandbox({ ...DEFAULT_SANDBOX_OPTIONS, bwrap: '/usr/bin/false' });
    expect(status).toEqual({ available: false, reason: '/usr/bin/false could not start a sandbox (exit code 1)' });
  });

  it('reports a bwrap that is not installed', async () => {
    const status = await probeSandbox({ ...DEFAULT_SANDBOX_OPTIONS, bwrap: 'stagecraft-no-such-bwrap' });
    expect(status).toMatchObject({
      available: false,
      reason: expect.stringMatching(/^bubblewrap \('stagecraft-no-such-bwrap'\) is not installed in \/usr\/local\/sbin:/),
    });
  });

  it('finds the installed bwrap and says how process counts are bounded', async () => {
    const status = await probeSandbox(DEFAULT_SANDBOX_OPTIONS);
    if (!status.available) throw new Error(`no sandbox: ${status.reason}`);
    const expected = status.cgroupParent !== null ? 'cgroup' : process.getuid?.() === 0 ? 'none' : 'rlimit';
    expect(status.processLimit).toBe(expected);
  });
});

describe('runSandboxed', () => {
  it('removes the cgroup of a call when the call ends', async () => {
    const status = await probeSandbox(DEFAULT_SANDBOX_OPTIONS);
    if (!status.available) throw new Error(`no sandbox: ${status.reason}`);
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-sandbox-run-')));
    const output: Buffer[] = [];
    try {
      const result = await runSandboxed(
        { command: 'ls', args: ['-a'], root, timeoutMs: 10_000, killGraceMs: 500, onOutput: (c) => output.push(c) },
        DEFAULT_SANDBOX_OPTIONS,
      );
      expect(result).toEqual({
        exitCode: 0,
        signal: null,
        timedOut: false,
        sandboxed: true,
        queuedMs: expect.any(Number),
        quarantined: [],
      });
      // Stagecraft's own state directory is made before the command, to be bound read-only.
      expect(Buffer.concat(output).toString()).toBe('.\n..\n.stagecraft\n');
      const mine =
        status.cgroupParent === null
          ? []
          : readdirSync(status.cgroupParent).filter((name) => name.startsWith(`stagecraft-sandbox-${process.pid}-`));
      expect(mine).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
