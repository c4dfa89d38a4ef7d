import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@stagecraft/contracts';
import { runCli } from '@stagecraft/testing';

describe('stagecraft health, embedded', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-embedded-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers for all six services from one process on the in-process transport and a sqlite file', async () => {
    const storePath = join(dir, 'events.db');
    const { code, stdout, stderr } = await runCli(['health', '--store', `sqlite:${storePath}`, '--json'], { NATS_URL: '' });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const rows = (JSON.parse(stdout) as { services: { service: string; up: boolean; reply: { transport: string; pid: number } }[] })
      .services;
    expect(rows.map((r) => [r.service, r.up, r.reply.transport])).toEqual(SERVICE_NAMES.map((s) => [s, true, 'inproc']));
    expect(new Set(rows.map((r) => r.reply.pid)).size).toBe(1);
    expect(existsSync(storePath)).toBe(true);
  });

  it('prints the table people read', async () => {
    const { code, stdout } = await runCli(['health', '--store', 'memory:'], { NATS_URL: '' });
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SERVICE\s+STATUS\s+TRANSPORT\s+STORE\s+NATS\s+MODEL\s+PID\s+LATENCY$/);
    expect(lines.slice(2, 2 + SERVICE_NAMES.length).map((l) => l.split(/\s+/).slice(0, 2))).toEqual(SERVICE_NAMES.map((s) => [s, 'up']));
  });

  it('rejects a bad store URL with a structured message and a non-zero exit', async () => {
    const { code, stderr } = await runCli(['health', '--store', 'postgres://nope'], { NATS_URL: '' });
    expect(code).toBe(2);
    expect(stderr).toContain('STAGECRAFT_STORE');
  });
});
