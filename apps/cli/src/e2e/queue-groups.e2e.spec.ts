import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REQUEST_SUBJECTS, withPrefix } from '@stagecraft/contracts';
import { MessageBus, connectNatsBus, natsConnectionOf } from '@stagecraft/messaging';
import { Host, startHost } from '@stagecraft/service-shell';
import { NatsServerHandle, startNatsServer } from '@stagecraft/testing';
import { allServices } from '../services';

/**
 * Every service can run as several replicas because every request subject is served through a queue
 * group: two hosts, each serving all six services on its own NATS connection, must between them take
 * each request exactly once. Without a queue group each request would reach both.
 */
describe('replicas share every request subject through queue groups (real nats-server)', () => {
  const prefix = 'queues';
  const PER_SUBJECT = 6;
  let nats: NatsServerHandle;
  let dir: string;
  let hosts: Host[];
  let client: MessageBus;
  /** Requests each host took, over every subject. */
  const taken = [0, 0];

  beforeAll(async () => {
    nats = await startNatsServer();
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-queues-'));
    const start = () =>
      startHost({
        definitions: allServices({ resume: false }),
        transport: 'nats',
        natsUrl: nats.url,
        store: `sqlite:${join(dir, 'events.db')}`,
        config: { prefix, requestTimeoutMs: 5_000, logLevel: 'silent', projectRoots: [dir] },
        // Leases renewed rarely: no lease traffic on the hosts' connections while requests are counted.
        env: { STAGECRAFT_LEASE_TTL_MS: '600000' },
      });
    hosts = [await start(), await start()];
    client = await connectNatsBus(nats.url, `${prefix}-client`);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    for (const host of hosts ?? []) await host.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const delivered = () => hosts.map((h) => natsConnectionOf(h.ports.bus)!.stats().inMsgs);

  it.each(REQUEST_SUBJECTS)('%s: each request reaches one replica', async (subject) => {
    const before = delivered();
    // Any body will do: a request the edge refuses has still been delivered to one responder.
    for (let i = 0; i < PER_SUBJECT; i++)
      await client.request(withPrefix(prefix, subject), JSON.stringify({ probe: randomUUID() }), { timeoutMs: 5_000 });
    const after = delivered();
    const perHost = after.map((n, i) => n - before[i]);
    expect(perHost.reduce((a, b) => a + b, 0)).toBe(PER_SUBJECT);
    perHost.forEach((n, i) => (taken[i] += n));
  });

  it('the two replicas shared the load', () => {
    expect(taken[0] + taken[1]).toBe(PER_SUBJECT * REQUEST_SUBJECTS.length);
    expect(taken.every((n) => n > 0)).toBe(true);
  });
});
