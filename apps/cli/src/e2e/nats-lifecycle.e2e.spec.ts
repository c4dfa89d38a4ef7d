import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import {
  NatsServerHandle,
  REPO_ROOT,
  SERVICE_APPS,
  ServiceProcess,
  eventually,
  exitOf,
  freePort,
  readWriteAgentScript,
  runCli,
  spawnApp,
  spawnProcess,
  startNatsServer,
  waitForHttp,
} from '@stagecraft/testing';
import { writeNatsConfig } from './distributed-system';

/**
 * Processes that start and stop cleanly whatever NATS does: the six services and `stagecraft serve`
 * started before their nats-server (they wait, not ready, then serve a run to its end), stopped by
 * SIGTERM while the server is gone (exit 0, nothing unhandled), and given up on a server that never
 * comes (exit 3, one structured line, no stack trace). The shipped server configuration, users and all.
 */

type LogLine = Record<string, unknown> & { level: string; msg: string };

/** A service's output as its log lines; anything that is not one (a stack trace, a raw error) fails the parse. */
function logLines(output: string): { lines: LogLine[]; other: string[] } {
  const lines: LogLine[] = [];
  const other: string[] = [];
  for (const text of output.split('\n').filter((l) => l.trim() !== '')) {
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      other.push(text);
    }
  }
  return { lines, other };
}

async function readiness(port: number): Promise<{ status: number; body: { ready: boolean; checks: { name: string; detail?: string }[] } }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: (await res.json()) as { ready: boolean; checks: { name: string; detail?: string }[] } };
}

/** Until `/readyz` answers at all (the process may still be loading), then what it says. */
const readinessOnceUp = (port: number, what: string, until: (r: Awaited<ReturnType<typeof readiness>>) => boolean) =>
  eventually(
    async () => {
      const r = await readiness(port).catch(() => undefined);
      return r && until(r) ? r : undefined;
    },
    what,
    { timeoutMs: 30_000 },
  );

describe('the six services started before nats-server, then stopped while it is gone', () => {
  const prefix = 'lifecycle';
  let server: ScriptedModelServer;
  let dir: string;
  let natsPort: number;
  let natsConfig: ReturnType<typeof writeNatsConfig>;
  let nats: NatsServerHandle | undefined;
  const services: { process: ServiceProcess; healthPort: number }[] = [];

  beforeAll(async () => {
    server = await startScriptedModelServer({ script: readWriteAgentScript });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-lifecycle-'));
    natsConfig = writeNatsConfig(dir, prefix);
    natsPort = await freePort();
  });

  afterAll(async () => {
    await Promise.all(services.map((s) => s.process.stop()));
    await nats?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('wait for the server, not ready meanwhile, then serve a run to its end over NATS', async () => {
    for (const name of SERVICE_APPS) {
      const healthPort = await freePort();
      const env = {
        NATS_URL: `nats://127.0.0.1:${natsPort}`,
        NATS_USER: name,
        NATS_PASSWORD: natsConfig.passwords[name],
        STAGECRAFT_STORE: `sqlite:${join(dir, 'events.db')}`,
        STAGECRAFT_SUBJECT_PREFIX: prefix,
        STAGECRAFT_HEALTH_PORT: String(healthPort),
        STAGECRAFT_PROJECT_ROOTS: dir,
        OPENAI_BASE_URL: server.url,
        OPENAI_API_KEY: 'test',
        STAGECRAFT_MODEL: 'scripted',
        // The stop is told at info.
        LOG_LEVEL: 'info',
      };
      services.push({ process: spawnApp(name, env), healthPort });
    }
    // Each one is alive, says it is not ready, and why: it has been refused and is trying again.
    for (const { process: service, healthPort } of services) {
      const waiting = await readinessOnceUp(healthPort, `${service.name} refused by the absent server`, (r) =>
        r.body.checks.some((c) => /attempt \d+ failed/.test(c.detail ?? '')),
      );
      expect({ service: service.name, status: waiting.status, ready: waiting.body.ready }).toEqual({
        service: service.name,
        status: 503,
        ready: false,
      });
      expect((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status).toBe(200);
      expect(service.child.exitCode).toBeNull();
    }

    nats = await startNatsServer({ config: natsConfig.file, env: natsConfig.env, port: natsPort });
    await Promise.all(services.map((s) => waitForHttp(`http://127.0.0.1:${s.healthPort}/readyz`, 60_000)));

    const project = join(dir, 'project');
    cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
    const clientsUrl = `nats://clients:${natsConfig.passwords['clients']}@127.0.0.1:${natsPort}`;
    const chat = await runCli(
      ['chat', 'Write notes about this project', '--root', project, '--mode', 'agent', '--reasoning', '--nats-url', clientsUrl],
      { STAGECRAFT_SUBJECT_PREFIX: prefix, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
      90_000,
    );
    expect({ code: chat.code, stderr: chat.stderr }).toEqual({ code: 0, stderr: '' });
    expect(chat.stdout).toMatch(/✔ completed \(DONE\)/);
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toBe('Sample project notes.\n');

    // Every failed attempt was a structured warning: which attempt, the pause before the next, the server.
    for (const { process: service } of services) {
      const retries = logLines(service.output()).lines.filter((l) => l.msg === 'nats not reachable; trying again');
      expect(retries.length).toBeGreaterThan(0);
      expect(retries[0]).toMatchObject({
        level: 'warn',
        service: service.name,
        attempt: 1,
        servers: `nats://127.0.0.1:${natsPort}`,
        error: 'connection refused',
        nextDelayMs: expect.any(Number),
      });
    }
  }, 180_000);

  it('a SIGTERM while nats-server is stopped: each exits 0 with nothing unhandled', async () => {
    expect(services).toHaveLength(SERVICE_APPS.length);
    await nats?.stop();
    nats = undefined;
    // Each has noticed: its readiness says NATS is down.
    for (const { process: service, healthPort } of services) {
      await readinessOnceUp(healthPort, `${service.name} to notice the server is gone`, (r) => r.status === 503);
    }
    const codes = await Promise.all(services.map((s) => s.process.stop()));
    expect(services.map((s, i) => [s.process.name, codes[i]])).toEqual(services.map((s) => [s.process.name, 0]));
    for (const { process: service } of services) {
      const { lines, other } = logLines(service.output());
      expect({ service: service.name, other }).toEqual({ service: service.name, other: [] });
      expect(lines.filter((l) => l.msg === 'ignored while stopping')).toEqual([]);
      expect(lines.some((l) => l.msg === 'service stopping')).toBe(true);
    }
  }, 120_000);
});

describe('a service whose NATS never comes', () => {
  it('exits 3 with one structured error line naming the server and the setting, and no stack trace', async () => {
    const port = await freePort();
    const service = spawnApp('policy', {
      NATS_URL: `nats://127.0.0.1:${port}`,
      STAGECRAFT_NATS_CONNECT_TIMEOUT_MS: '1500',
      STAGECRAFT_HEALTH_PORT: '0',
    });
    expect(await exitOf(service.child)).toBe(3);
    const { lines, other } = logLines(service.output());
    expect(other).toEqual([]);
    const errors = lines.filter((l) => l.level === 'error' || l.level === 'fatal');
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'UNAVAILABLE',
        nats: `nats://127.0.0.1:${port}`,
        msg: expect.stringMatching(/STAGECRAFT_NATS_CONNECT_TIMEOUT_MS.*connection refused \(\d+ attempts in /),
      }),
    ]);
    expect(lines.filter((l) => l.level === 'warn').length).toBeGreaterThan(0);
  }, 30_000);

  it('a SIGTERM while it still waits exits 0', async () => {
    const [port, healthPort] = [await freePort(), await freePort()];
    const service = spawnApp('policy', {
      NATS_URL: `nats://127.0.0.1:${port}`,
      STAGECRAFT_HEALTH_PORT: String(healthPort),
      LOG_LEVEL: 'info',
    });
    await readinessOnceUp(healthPort, 'a refused attempt', (r) => r.body.checks.some((c) => /attempt \d+ failed/.test(c.detail ?? '')));
    expect(await service.stop()).toBe(0);
    const { lines, other } = logLines(service.output());
    expect(other).toEqual([]);
    expect(lines.some((l) => l.msg === 'stopping before NATS was reached')).toBe(true);
  }, 30_000);
});

describe('the CLI when NATS is not there', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-lifecycle-cli-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stagecraft serve --transport nats gives up with UNAVAILABLE and exit 3, in one line', async () => {
    const port = await freePort();
    const { code, stdout, stderr } = await runCli(
      [
        'serve',
        '--transport',
        'nats',
        '--nats-url',
        `nats://127.0.0.1:${port}`,
        '--services',
        'policy',
        '--store',
        `sqlite:${join(dir, 'serve.db')}`,
      ],
      { STAGECRAFT_NATS_CONNECT_TIMEOUT_MS: '1000', STAGECRAFT_HEALTH_PORT: '0' },
    );
    expect({ code, stdout }).toEqual({ code: 3, stdout: '' });
    const lines = stderr.trim().split('\n');
    expect(
      lines
        .slice(0, -1)
        .every((l) => /^stagecraft: NATS at \S+ not reachable \(connection refused\), attempt \d+; trying again in \d+ ms$/.test(l)),
    ).toBe(true);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^stagecraft: NATS at nats://127\\.0\\.0\\.1:${port}: connection refused \\(\\d+ attempts in [\\d.]+ s\\)$`),
    );
  });

  it('a command given --nats-url fails with UNAVAILABLE and exit 3, no stack trace', async () => {
    const port = await freePort();
    const { code, stderr } = await runCli(['runs', 'list', '--nats-url', `nats://127.0.0.1:${port}`]);
    expect({ code, stderr }).toEqual({ code: 3, stderr: `stagecraft: NATS at nats://127.0.0.1:${port}: connection refused\n` });
  });

  it('stagecraft serve started before nats-server serves once it comes, and a SIGTERM while it is gone exits 0', async () => {
    const prefix = 'lifecycle-serve';
    const config = writeNatsConfig(dir, prefix);
    const [port, healthPort] = [await freePort(), await freePort()];
    const cli = join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs');
    const project = join(dir, 'serve-projects');
    mkdirSync(project, { recursive: true });
    const serve = spawnProcess(
      'stagecraft serve',
      process.execPath,
      [cli, 'serve', '--transport', 'nats', '--nats-url', `nats://127.0.0.1:${port}`],
      {
        NATS_USER: 'stagecraft-host',
        NATS_PASSWORD: config.passwords['stagecraft-host'],
        STAGECRAFT_STORE: `sqlite:${join(dir, 'served.db')}`,
        STAGECRAFT_SUBJECT_PREFIX: prefix,
        STAGECRAFT_PROJECT_ROOTS: project,
        STAGECRAFT_HEALTH_PORT: String(healthPort),
      },
    );
    let nats: NatsServerHandle | undefined;
    try {
      const waiting = await readinessOnceUp(healthPort, 'serve refused by the absent server', (r) =>
        r.body.checks.some((c) => /attempt \d+ failed/.test(c.detail ?? '')),
      );
      expect(waiting.status).toBe(503);
      nats = await startNatsServer({ config: config.file, env: config.env, port });
      await waitForHttp(`http://127.0.0.1:${healthPort}/readyz`, 60_000);
      const health = await runCli(['health', '--nats-url', `nats://clients:${config.passwords['clients']}@127.0.0.1:${port}`], {
        STAGECRAFT_SUBJECT_PREFIX: prefix,
      });
      expect({ code: health.code, stderr: health.stderr }).toEqual({ code: 0, stderr: '' });

      await nats.stop();
      nats = undefined;
      await readinessOnceUp(healthPort, 'serve to notice the server is gone', (r) => r.status === 503);
      expect(await serve.stop()).toBe(0);
      const output = serve.output();
      expect(output).not.toMatch(/Unhandled|RequestError|\n\s+at /);
      expect(existsSync(join(dir, 'served.db'))).toBe(true);
    } finally {
      await serve.stop();
      await nats?.stop();
    }
  }, 120_000);
});
