import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NatsServerHandle, REPO_ROOT, exitOf, runCli, spawnApp, startNatsServer } from '@stagecraft/testing';

/** `stagecraft serve` hosting a subset of the services on NATS, seen by `stagecraft health` from another process. */
describe('stagecraft serve --transport nats --services …', () => {
  let nats: NatsServerHandle;
  let dir: string;
  beforeAll(async () => {
    nats = await startNatsServer();
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-serve-'));
  });
  afterAll(async () => {
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves exactly the services asked for, and stops cleanly on SIGTERM', async () => {
    const store = `sqlite:${join(dir, 'events.db')}`;
    const child = spawn(
      process.execPath,
      [
        join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs'),
        'serve',
        '--transport',
        'nats',
        '--nats-url',
        nats.url,
        '--services',
        'policy,memory',
        '--store',
        store,
      ],
      {
        // Memory answers for projects, so on a bus it needs the roots it may answer for.
        env: { ...process.env, STAGECRAFT_PROJECT_ROOTS: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        if (stdout.includes('stagecraft serving')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${stdout}`)));
    });
    expect(stdout).toContain('stagecraft serving policy, memory on nats');

    const { code, stdout: table } = await runCli(['health', '--nats-url', nats.url, '--json', '--timeout', '500']);
    expect(code).toBe(3);
    const rows = (JSON.parse(table) as { services: { service: string; up: boolean }[] }).services;
    expect(rows.filter((r) => r.up).map((r) => r.service)).toEqual(['policy', 'memory']);

    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(0);
  });

  it('refuses an unknown service name', async () => {
    const { code, stderr } = await runCli(['serve', '--services', 'policy,oracle']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('unknown service(s) oracle');
  });

  it('refuses to serve the project-touching services on NATS without STAGECRAFT_PROJECT_ROOTS', async () => {
    const env = { STAGECRAFT_PROJECT_ROOTS: '', STAGECRAFT_PROJECT_ROOT: '' };
    const { code, stderr } = await runCli(
      [
        'serve',
        '--transport',
        'nats',
        '--nats-url',
        nats.url,
        '--services',
        'tool-execution',
        '--store',
        `sqlite:${join(dir, 'roots.db')}`,
      ],
      env,
    );
    expect(code).not.toBe(0);
    expect(stderr).toContain('STAGECRAFT_PROJECT_ROOTS: required');
    const app = spawnApp('tool-execution', {
      NATS_URL: nats.url,
      STAGECRAFT_STORE: `sqlite:${join(dir, 'roots.db')}`,
      STAGECRAFT_HEALTH_PORT: '0',
      ...env,
    });
    expect(await exitOf(app.child)).toBe(1);
    expect(app.output()).toContain('STAGECRAFT_PROJECT_ROOTS: required');
  });
});
