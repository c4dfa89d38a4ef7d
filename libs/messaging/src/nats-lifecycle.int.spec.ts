import { NatsServerHandle, freePort, startNatsServer } from '@stagecraft/testing';
import { ConnectionEvent, MessageBus } from './bus';
import { ConnectAttemptFailed } from './nats-connect-retry';
import { connectNatsBus } from './nats-bus';
import { leasesFor } from './leases';

/** A real nats-server that is not there yet, goes away, and comes back. */
describe('a NATS bus across the life of its server', () => {
  const servers: NatsServerHandle[] = [];
  const buses: MessageBus[] = [];
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    await Promise.all(servers.map((s) => s.stop()));
  });

  async function echo(bus: MessageBus, subject: string): Promise<string> {
    bus.respond(subject, 'q', async (m) => ({ body: `echo ${m.body}` }));
    await bus.flush();
    return (await bus.request(subject, 'hi', { timeoutMs: 5000 })).body;
  }

  it('waits for a server that starts after it, then works', async () => {
    const port = await freePort();
    const failures: ConnectAttemptFailed[] = [];
    let started: Promise<NatsServerHandle> | undefined;
    const connecting = connectNatsBus(`nats://127.0.0.1:${port}`, 'early', {
      retry: {
        budgetMs: 60_000,
        onRetry: (failed) => {
          failures.push(failed);
          // The server starts only once the client has been refused: the order the test is about.
          started ??= startNatsServer({ port }).then((s) => (servers.push(s), s));
        },
      },
    });
    const bus = await connecting;
    buses.push(bus);
    await started;
    expect(failures.length).toBeGreaterThan(0);
    expect(failures[0]).toMatchObject({ attempt: 1, servers: `nats://127.0.0.1:${port}`, error: 'connection refused' });
    expect(await echo(bus, 'early.echo')).toBe('echo hi');
  }, 30_000);

  it('gives up with UNAVAILABLE naming the address and the attempts when the server never comes', async () => {
    const port = await freePort();
    await expect(connectNatsBus(`nats://127.0.0.1:${port}`, 'never', { retry: { budgetMs: 500 } })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(new RegExp(`^NATS at nats://127\\.0\\.0\\.1:${port}: connection refused \\(\\d+ attempts in `)),
    });
  });

  it('a lease asked for while the server is gone fails with UNAVAILABLE, not after a request timeout', async () => {
    const server = await startNatsServer();
    servers.push(server);
    const bus = await connectNatsBus(server.url, 'leaser');
    buses.push(bus);
    const leases = await leasesFor(bus, 'lifecycle', 15_000);
    const revision = await leases.take('processor.k', 'me');
    expect(revision).not.toBeNull();
    const lost = new Promise<void>((resolve) => bus.watchConnection?.((e) => e.type === 'disconnect' && resolve()));
    await server.stop();
    await lost;
    await expect(leases.renew('processor.k', 'me', revision!)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(leases.release('processor.k', revision!)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  }, 30_000);

  it('closes without an error while its server is gone, and carries on after a server restart', async () => {
    const server = await startNatsServer();
    servers.push(server);
    const [survivor, doomed] = [await connectNatsBus(server.url, 'survivor'), await connectNatsBus(server.url, 'doomed')];
    buses.push(survivor);
    const events: ConnectionEvent['type'][] = [];
    survivor.watchConnection?.((e) => events.push(e.type));
    doomed.subscribe('nothing', () => undefined);
    await server.stop();

    // A drain has no server to drain to: close must neither hang nor reject.
    await expect(doomed.close()).resolves.toBeUndefined();

    const restarted = await startNatsServer({ port: server.port });
    servers.push(restarted);
    // The client reconnects on its own (no attempt limit); requests work again once it has.
    const deadline = Date.now() + 20_000;
    let answer: string | undefined;
    while (answer === undefined && Date.now() < deadline) {
      answer = await echo(survivor, `again.${Date.now()}`).catch(() => undefined);
    }
    expect(answer).toBe('echo hi');
    expect(events).toEqual(expect.arrayContaining(['disconnect', 'reconnect']));
  }, 60_000);
});
