import { NatsServerHandle, eventually, startNatsServer } from '@stagecraft/testing';
import { ConnectionEvent } from './bus';
import { connectNatsBus } from './nats-bus';

describe('the NATS connection as the shell sees it', () => {
  let server: NatsServerHandle;
  afterAll(async () => server?.stop());

  it('reports a lost connection and its return, naming the server', async () => {
    server = await startNatsServer();
    const bus = await connectNatsBus(server.url, 'watched');
    const events: ConnectionEvent[] = [];
    bus.watchConnection?.((e) => events.push(e));
    const { port } = server;
    await server.stop();
    await eventually(async () => (events.some((e) => e.type === 'disconnect') ? true : undefined), 'the disconnect');
    server = await startNatsServer({ port });
    await eventually(async () => (events.some((e) => e.type === 'reconnect') ? true : undefined), 'the reconnect');
    await bus.close();
    const address = `127.0.0.1:${port}`;
    expect(events.filter((e) => e.type !== 'error').map((e) => [e.type, e.server?.includes(address)])).toEqual([
      ['disconnect', true],
      ['reconnect', true],
    ]);
  });
});
