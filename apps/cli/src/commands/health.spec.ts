import type { DependencyCheck, HealthReply } from '@stagecraft/contracts';
import { HealthRow, dependencyRows, formatHealth, healthExitCode } from './health';

const check = (name: DependencyCheck['name'], ok: boolean, latencyMs = 1): DependencyCheck => ({
  name,
  ok,
  required: name !== 'model',
  address: name === 'store' ? 'kurrentdb://db:2113' : name === 'nats' ? 'nats://bus:4222' : 'http://llm/v1',
  latencyMs,
  ...(ok ? {} : { detail: `${name} refused` }),
});
const reply = (service: HealthReply['service'], status: HealthReply['status'], dependencies: DependencyCheck[]): HealthReply => ({
  service,
  status,
  version: '0.1.0',
  pid: 7,
  uptimeMs: 1,
  transport: 'nats',
  store: null,
  dependencies,
});
const row = (r: HealthReply): HealthRow => ({ service: r.service, up: r.status !== 'down', latencyMs: 2, reply: r });

describe('the health report', () => {
  const rows = [
    row(reply('conversation', 'degraded', [check('store', true, 3), check('nats', true), check('model', false)])),
    row(reply('memory', 'down', [check('store', false, 9), check('nats', true)])),
  ];

  it('merges what each service saw into one row per dependency: down when any saw it down', () => {
    expect(dependencyRows(rows).map((d) => [d.name, d.ok, d.required, d.latencyMs, d.seenBy])).toEqual([
      ['store', false, true, 9, ['conversation', 'memory']],
      ['nats', true, true, 1, ['conversation', 'memory']],
      ['model', false, false, 1, ['conversation']],
    ]);
  });

  it('exits 3 for a required dependency or a service down, 0 with only warnings', () => {
    expect(healthExitCode({ services: rows, dependencies: dependencyRows(rows) })).toBe(3);
    const warnedOnly = [rows[0]];
    expect(healthExitCode({ services: warnedOnly, dependencies: dependencyRows(warnedOnly) })).toBe(0);
    const silent: HealthRow = { service: 'qa', up: false, latencyMs: 2000, error: 'TIMEOUT: no reply' };
    expect(healthExitCode({ services: [silent], dependencies: [] })).toBe(3);
  });

  it('prints service rows with a column per dependency, then each dependency with its address, state and latency', () => {
    const lines = formatHealth(rows).split('\n');
    expect(lines[0]).toMatch(/^SERVICE\s+STATUS\s+TRANSPORT\s+STORE\s+NATS\s+MODEL\s+PID\s+LATENCY$/);
    expect(lines[2]).toMatch(/^conversation\s+up \(warning\)\s+nats\s+up 3\.0 ms\s+up 1\.0 ms\s+warning 1\.0 ms/);
    expect(lines[3]).toMatch(/^memory\s+DOWN\s+nats\s+DOWN 9\.0 ms/);
    expect(lines).toContainEqual(expect.stringMatching(/^store\s+kurrentdb:\/\/db:2113\s+DOWN\s+9\.0 ms\s+store refused$/));
    expect(lines).toContainEqual(expect.stringMatching(/^model\s+http:\/\/llm\/v1\s+warning \(not required\)/));
  });
});
