import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@stagecraft/contracts';
import { NatsServerHandle, REPO_ROOT, ServiceProcess, exitOf, freePort, runCli, spawnApp, startNatsServer } from '@stagecraft/testing';

interface Check {
  name: string;
  ok: boolean;
  required: boolean;
  address: string;
  detail?: string;
}
interface Report {
  services: { service: string; up: boolean; error?: string; reply?: { status: string; dependencies: Check[] } }[];
  dependencies: (Check & { seenBy: string[] })[];
}

const readyz = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: (await res.json()) as { ready: boolean; checks: Check[] } };
};

/** Waits until the process's probe server answers at all (200 or 503: it is listening). */
async function probesUp(port: number, app: ServiceProcess): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    if (app.child.exitCode !== null) throw new Error(`${app.name} exited: ${app.output()}`);
    const answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${app.name} never opened its probes: ${app.output()}`);
}

describe('stagecraft health and /readyz tell the truth about dependencies', () => {
  let nats: NatsServerHandle;
  let dir: string;
  const apps: ServiceProcess[] = [];
  beforeAll(async () => {
    nats = await startNatsServer();
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-health-'));
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports a service whose store is unreachable as down (exit 3), naming the store, and a model endpoint only as a warning', async () => {
    const [closedStorePort, closedModelPort, toolProbes, qaProbes, policyProbes] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const store = `kurrentdb://127.0.0.1:${closedStorePort}?tls=false`;
    const model = `http://127.0.0.1:${closedModelPort}/v1`;
    const common = { NATS_URL: nats.url, STAGECRAFT_HEALTH_HOST: '127.0.0.1' };
    const tools = spawnApp('tool-execution', {
      ...common,
      STAGECRAFT_STORE: store,
      STAGECRAFT_PROJECT_ROOTS: dir,
      STAGECRAFT_HEALTH_PORT: String(toolProbes),
    });
    const qa = spawnApp('qa', { ...common, OPENAI_BASE_URL: model, OPENAI_API_KEY: 'k', STAGECRAFT_HEALTH_PORT: String(qaProbes) });
    const policy = spawnApp('policy', { ...common, STAGECRAFT_HEALTH_PORT: String(policyProbes) });
    apps.push(tools, qa, policy);
    await Promise.all([probesUp(toolProbes, tools), probesUp(qaProbes, qa), probesUp(policyProbes, policy)]);

    const toolsReady = await readyz(toolProbes);
    expect(toolsReady.status).toBe(503);
    expect(toolsReady.body.checks.find((c) => c.name === 'store')).toMatchObject({ ok: false, required: true, address: store });
    expect(toolsReady.body.checks.find((c) => c.name === 'nats')).toMatchObject({ ok: true, address: nats.url });
    const qaReady = await readyz(qaProbes);
    expect(qaReady.status).toBe(200);
    expect(qaReady.body.checks.find((c) => c.name === 'model')).toMatchObject({ ok: false, required: false, address: model });

    const { code, stdout } = await runCli(['health', '--nats-url', nats.url, '--json', '--timeout', '3000']);
    expect(code).toBe(3);
    const report = JSON.parse(stdout) as Report;
    const row = (name: string) => report.services.find((s) => s.service === name);
    expect(row('tool-execution')).toMatchObject({ up: false, reply: { status: 'down' } });
    expect(row('qa')).toMatchObject({ up: true, reply: { status: 'degraded' } });
    expect(row('policy')).toMatchObject({ up: true, reply: { status: 'ok' } });
    expect(row('memory')?.error).toContain(nats.url);
    expect(report.dependencies.map((d) => [d.name, d.address, d.ok, d.required])).toEqual([
      ['store', store, false, true],
      ['nats', nats.url, true, true],
      ['model', model, false, false],
    ]);

    // The table names the dependency, where it was looked for, and its state.
    const table = await runCli(['health', '--nats-url', nats.url, '--timeout', '3000']);
    expect(table.code).toBe(3);
    expect(table.stdout).toMatch(new RegExp(`store\\s+${store.replace(/[?.]/g, '\\$&')}\\s+DOWN`));
    expect(table.stdout).toContain('warning (not required)');
  });

  it('exits 3 naming the NATS address when NATS is down', async () => {
    const closed = `nats://127.0.0.1:${await freePort()}`;
    const { code, stdout, stderr } = await runCli(['health', '--nats-url', closed, '--json']);
    expect(code).toBe(3);
    expect(stderr).toContain(closed);
    const report = JSON.parse(stdout) as Report;
    expect(report.dependencies).toEqual([expect.objectContaining({ name: 'nats', ok: false, required: true, address: closed })]);
    expect(report.services.every((s) => !s.up)).toBe(true);
  });

  it('answers 0 for an embedded system whose store reads, showing the model warning without failing on it', async () => {
    const closedModel = `http://127.0.0.1:${await freePort()}/v1`;
    const store = `sqlite:${join(dir, 'embedded.db')}`;
    const { code, stdout } = await runCli(['health', '--store', store, '--json'], { NATS_URL: '', OPENAI_BASE_URL: closedModel });
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Report;
    expect(report.services.map((s) => [s.service, s.up])).toEqual(SERVICE_NAMES.map((s) => [s, true]));
    expect(report.dependencies.map((d) => [d.name, d.address, d.ok])).toEqual([
      ['store', store, true],
      ['model', closedModel, false],
    ]);
  });
});

describe('stagecraft serve opens its probes (and /metrics) and picks its transport from the URL', () => {
  let nats: NatsServerHandle;
  let dir: string;
  beforeAll(async () => {
    nats = await startNatsServer();
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-serve-probes-'));
  });
  afterAll(async () => {
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves on NATS when only --nats-url is given, with /readyz checking the store and NATS', async () => {
    const port = await freePort();
    const child: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [
        join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs'),
        'serve',
        '--nats-url',
        nats.url,
        '--services',
        'policy,memory',
        '--store',
        `sqlite:${join(dir, 'events.db')}`,
      ],
      {
        env: { ...process.env, STAGECRAFT_PROJECT_ROOTS: dir, STAGECRAFT_HEALTH_PORT: String(port), STAGECRAFT_HEALTH_HOST: '127.0.0.1' },
        stdio: 'pipe',
      },
    );
    try {
      let stdout = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          if (stdout.includes('stagecraft serving')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${stdout}`)));
      });
      expect(stdout).toContain(`on nats (${nats.url})`);
      expect(stdout).toContain(`probes on http://127.0.0.1:${port}`);
      const ready = await readyz(port);
      expect(ready.status).toBe(200);
      expect(ready.body.checks.map((c) => [c.name, c.ok])).toEqual([
        ['store', true],
        ['nats', true],
      ]);
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('# TYPE');
    } finally {
      child.kill('SIGTERM');
      expect(await exitOf(child)).toBe(0);
    }
  });

  it('refuses --transport nats without a NATS URL as a usage error', async () => {
    const { code, stderr } = await runCli(['serve', '--transport', 'nats', '--store', 'memory:'], { NATS_URL: '' });
    expect(code).toBe(2);
    expect(stderr).toContain('--transport nats needs --nats-url or NATS_URL');
  });
});
